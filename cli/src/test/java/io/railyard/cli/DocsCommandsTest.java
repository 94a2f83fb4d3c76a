package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every command the README and docs/ show in an {@code sh} block that runs railyard on a shipped example or test file
 * runs as shown: no usage error, no stack trace, something printed. Paths are the repository's, as a reader runs them
 * from its root.
 */
class DocsCommandsTest {
    private static final Path REPO = Path.of(System.getProperty("railyard.repo", "..")).toAbsolutePath().normalize();

    /** The shown commands: {@code ./railyard ...} lines of sh blocks (continuations joined) that name examples/ or testdata/. */
    static List<String> shownCommands() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(REPO.resolve("README.md")));
        try (Stream<Path> docs = Files.list(REPO.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<String> commands = new ArrayList<>();
        for (Path page : pages) {
            boolean inSh = false;
            StringBuilder line = new StringBuilder();
            for (String text : Files.readAllLines(page)) {
                if (text.startsWith("```")) {
                    inSh = !inSh && text.strip().equals("```sh");
                    continue;
                }
                if (!inSh) {
                    continue;
                }
                line.append(text.endsWith("\\") ? text.substring(0, text.length() - 1) : text);
                if (!text.endsWith("\\")) {
                    String command = line.toString().strip();
                    line.setLength(0);
                    if (command.startsWith("./railyard ") && (command.contains("examples/") || command.contains("testdata/"))) {
                        commands.add(command);
                    }
                }
            }
        }
        return commands;
    }

    @Test
    void everyShownCommandOnShippedFilesRuns() throws IOException {
        List<String> commands = shownCommands();
        assertThat(commands).as("the README's first command is among them").contains("./railyard doctor --root examples/nodes/roce-8gpu")
                .hasSizeGreaterThanOrEqualTo(8);
        for (String command : commands) {
            if (command.startsWith("./railyard submit ")) {
                continue; // a cluster's command: the e2e test UpIT submits the shipped examples on railyard up's
            }
            List<String> args = new ArrayList<>();
            for (String word : command.substring("./railyard ".length()).split("\\s+")) {
                if (word.equals(">")) {
                    break; // the shown redirection: the output is checked here instead
                }
                args.add(word.startsWith("examples/") || word.startsWith("testdata/") ? REPO.resolve(word).toString() : word);
            }
            CommandRun run = CommandRun.of(args.toArray(String[]::new));
            assertThat(run.exitCode()).as(command + "\n" + run.err()).isIn(0, 1);
            assertThat(run.out()).as(command).isNotBlank();
            assertThat(run.err()).as(command).doesNotContain("Exception").doesNotContain("\tat ");
        }
    }
}
