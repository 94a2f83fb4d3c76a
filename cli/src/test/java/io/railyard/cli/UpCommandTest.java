package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** railyard up, down and up fault as a user mistypes them: one line that says what to give, exit 2, nothing started. */
class UpCommandTest {
    @TempDir
    Path dir;

    @Test
    void aSchedulerUpDoesNotStartIsNamedWithTheOnesItDoes() {
        CommandRun run = CommandRun.of("up", "--scheduler", "volcano,yunikorn", "--dir", dir.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err().strip()).isEqualTo("up: --scheduler yunikorn is not one this command starts: volcano, kueue, volcano,kueue or none");
    }

    @Test
    void aNodeCountOutOfRangeIsRefused() {
        CommandRun run = CommandRun.of("up", "--nodes", "0", "--dir", dir.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--nodes 0 is out of range: give 1 to 64");
    }

    @Test
    void outsideAClonedRepositoryUpSaysWhereItRuns() {
        CommandRun run = CommandRun.of("up", "--dir", dir.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("it runs from a clone of Railyard: ./railyard up");
        assertThat(dir).isEmptyDirectory();
    }

    @Test
    void aFaultWithoutACluster() {
        CommandRun run = CommandRun.of("up", "fault", "rdma-0", "mlx5_0", "--dir", dir.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err().strip()).isEqualTo("fault: no cluster of railyard up in " + dir + ": start one with railyard up");
    }
}
