package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The top-level command: help lists every command, though a run builds only the one it names. */
class RailyardTest {

    @Test
    void helpListsEveryCommand() {
        CommandRun run = CommandRun.of("--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("doctor", "analyze", "render", "agent", "exporter", "submit", "status", "operator",
                "await-rank", "help");
    }

    @Test
    void helpForOneCommandShowsItsOptions() {
        CommandRun run = CommandRun.of("help", "analyze");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("Usage: railyard analyze").contains("--nic-gbps");
    }

    @Test
    void aMisspelledCommandIsAUsageError() {
        CommandRun run = CommandRun.of("analyse", "x.log");

        assertThat(run.exitCode()).isEqualTo(Railyard.USAGE);
        assertThat(run.err()).isEqualTo("railyard: unknown command 'analyse': did you mean analyze? (see railyard --help)\n");
        assertThat(CommandRun.of("doctor", "--rooot", "/").err())
                .isEqualTo("doctor: unknown option '--rooot': did you mean --root? (see railyard doctor --help)\n");
    }

    @Test
    void anUnknownCommandWithHelpIsStillAnUnknownCommand() {
        CommandRun run = CommandRun.of("launch", "--help");

        assertThat(run.exitCode()).isEqualTo(Railyard.USAGE);
        assertThat(run.err()).startsWith("railyard: unknown command 'launch'").endsWith(" (see railyard --help)\n").hasLineCount(1);
        assertThat(run.out()).isEmpty();
        assertThat(CommandRun.of("analyse", "-h").err()).startsWith("railyard: unknown command 'analyse': did you mean analyze?");
    }

    @Test
    void noArgumentsListsTheCommands() {
        CommandRun run = CommandRun.of();

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).startsWith("Usage: railyard").contains("doctor", "analyze", "render", "preflight", "fabric");
        assertThat(run.err()).isEmpty();
    }
}
