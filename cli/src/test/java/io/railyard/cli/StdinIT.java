package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code -} for standard input, as a real process reads what is piped to it. */
class StdinIT {
    private static final Path REPO = Path.of(System.getProperty("railyard.repo", ".."));

    private static Process railyard(Path input, String... args) throws Exception {
        List<String> argv = new java.util.ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
                System.getProperty("java.class.path"), "io.railyard.cli.Railyard"));
        argv.addAll(List.of(args));
        return new ProcessBuilder(argv).redirectInput(input.toFile()).redirectErrorStream(true).start();
    }

    @Test
    void renderReadsAJobFromStandardInput() throws Exception {
        Process render = railyard(REPO.resolve("examples/trainingjobs/ib-volcano.yaml"), "render", "-f", "-");
        String out = new String(render.getInputStream().readAllBytes());

        assertThat(render.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(render.exitValue()).as(out).isZero();
        assertThat(out).contains("kind: \"PodGroup\"").contains("kind: \"Pod\"");
    }

    @Test
    void analyzeReadsALogFromStandardInput() throws Exception {
        Path log = REPO.resolve("testdata/logs/nccl-ib-retry-exceeded-01.log");
        Process analyze = railyard(log, "analyze", "-");
        String out = new String(analyze.getInputStream().readAllBytes());

        assertThat(analyze.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(analyze.exitValue()).as(out).isOne();
        assertThat(out).startsWith("-: nccl-log").contains("retry-exceeded");
        assertThat(Files.size(log)).isPositive();
    }
}
