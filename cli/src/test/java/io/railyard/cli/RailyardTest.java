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
        assertThat(run.err()).contains("railyard: Unmatched arguments").contains("see railyard --help");
    }
}
