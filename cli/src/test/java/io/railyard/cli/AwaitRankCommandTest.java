package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AwaitRankCommandTest {
    @TempDir
    Path dir;

    @Test
    void writesTheRankOnceTheOperatorAnnotatedThePod() throws Exception {
        Path annotations = Files.writeString(dir.resolve("annotations"), "kubernetes.io/config.seen=\"2026-11-30T01:00:00Z\"\n");
        Path env = dir.resolve("rank.env");
        CompletableFuture<CommandRun> run = CompletableFuture.supplyAsync(() -> CommandRun.of("await-rank",
                "--annotations", annotations.toString(), "--env-file", env.toString(), "--poll-ms", "20", "--timeout-seconds", "30"));

        Files.writeString(annotations, "kubernetes.io/config.seen=\"2026-11-30T01:00:00Z\"\nrailyard.io/master-addr=\"job-2.job.ns.svc\"\n"
                + "railyard.io/node-rank=\"0\"\n");

        assertThat(run.get().exitCode()).isZero();
        assertThat(Files.readString(env)).isEqualTo("export PET_NODE_RANK=0\nexport PET_MASTER_ADDR=job-2.job.ns.svc\n");
    }

    @Test
    void refusesValuesThatAreNotARankAndAHost() throws Exception {
        Path annotations = Files.writeString(dir.resolve("annotations"),
                "railyard.io/node-rank=\"0; reboot\"\nrailyard.io/master-addr=\"$(id)\"\n");

        CommandRun run = CommandRun.of("await-rank", "--annotations", annotations.toString(), "--env-file", dir.resolve("env").toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(dir.resolve("env")).doesNotExist();
    }

    @Test
    void givesUpAfterTheTimeout() {
        CommandRun run = CommandRun.of("await-rank", "--annotations", dir.resolve("missing").toString(),
                "--env-file", dir.resolve("env").toString(), "--timeout-seconds", "0", "--poll-ms", "10");

        assertThat(run.exitCode()).isOne();
    }
}
