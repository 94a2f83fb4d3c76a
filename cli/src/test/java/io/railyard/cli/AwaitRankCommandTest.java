package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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

    @Test
    void letsTheFirstAttemptThroughAndHoldsAPodThatRestartedItselfUntilTheNextAttempt() throws Exception {
        Path labels = Files.writeString(dir.resolve("labels"), "railyard.io/attempt=\"0\"\nrailyard.io/job-name=\"job\"\n");
        Path attempt = dir.resolve("attempt");
        String[] args = {"await-rank", "--labels", labels.toString(), "--attempt-file", attempt.toString(), "--poll-ms", "20", "--timeout-seconds", "30"};

        assertThat(CommandRun.of(args).exitCode()).isZero();
        assertThat(attempt).hasContent("0");

        // the trainer failed and the kubelet restarted the pod in place: attempt 0 again is held
        CompletableFuture<CommandRun> held = CompletableFuture.supplyAsync(() -> CommandRun.of(args));
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> !held.isDone());
        Files.writeString(labels, "railyard.io/attempt=\"1\"\nrailyard.io/job-name=\"job\"\n"); // the operator's next attempt

        assertThat(held.get().exitCode()).isZero();
        assertThat(attempt).hasContent("1");
    }

    @Test
    void restartWatchExitsWithTheRestartCodeOnceThePodMovesToANewerAttempt() throws Exception {
        Path labels = Files.writeString(dir.resolve("labels"), "railyard.io/attempt=\"2\"\n");
        Path attempt = Files.writeString(dir.resolve("attempt"), "2\n");
        CompletableFuture<CommandRun> watch = CompletableFuture.supplyAsync(() -> CommandRun.of("restart-watch",
                "--labels", labels.toString(), "--attempt-file", attempt.toString(), "--poll-ms", "20"));
        // the trainer runs the pod's attempt: nothing to do
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> !watch.isDone());

        Files.writeString(labels, "railyard.io/attempt=\"3\"\n");

        CommandRun run = watch.get();
        assertThat(run.exitCode()).isEqualTo(86);
        assertThat(run.err()).contains("the gang moved to attempt 3", "the trainer runs attempt 2: restarting the pod in place");
    }

    @Test
    void theRanksOfANewAttemptPassTogetherOnceEveryPodCarriesIt() throws Exception {
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        List<Path> labels = new java.util.ArrayList<>();
        List<CompletableFuture<CommandRun>> ranks = new java.util.ArrayList<>();
        java.util.concurrent.ExecutorService pods = java.util.concurrent.Executors.newFixedThreadPool(3); // one thread a pod
        for (int rank = 0; rank < 3; rank++) {
            Path pod = Files.createDirectories(dir.resolve("pod-" + rank));
            Files.writeString(pod.resolve("attempt"), "0\n"); // each ran attempt 0
            labels.add(Files.writeString(pod.resolve("labels"), "railyard.io/attempt=\"" + (rank < 2 ? 1 : 0) + "\"\nrailyard.io/job-index=\"" + rank + "\"\n"));
            String[] args = {"await-rank", "--labels", pod.resolve("labels").toString(), "--attempt-file", pod.resolve("attempt").toString(),
                "--barrier-port", String.valueOf(port), "--nodes", "3", "--master-addr", "127.0.0.1", "--poll-ms", "20", "--timeout-seconds", "30"};
            ranks.add(CompletableFuture.supplyAsync(() -> CommandRun.of(args), pods));
        }
        // rank 2's pod still runs attempt 0: nobody passes
        await().during(Duration.ofMillis(1_500)).atMost(Duration.ofSeconds(10)).until(() -> ranks.stream().noneMatch(CompletableFuture::isDone));

        Files.writeString(labels.get(2), "railyard.io/attempt=\"1\"\nrailyard.io/job-index=\"2\"\n");

        for (int rank = 0; rank < 3; rank++) {
            assertThat(ranks.get(rank).get(20, java.util.concurrent.TimeUnit.SECONDS).exitCode()).isZero();
            assertThat(dir.resolve("pod-" + rank).resolve("attempt")).hasContent("1");
        }
        pods.shutdown();
    }

    @Test
    void theGateListensOnTheJobsInterfaceOnlyAndAnInterfaceThePodLacksIsNamed() throws Exception {
        assertThat(InterfaceAddress.of("lo").isLoopbackAddress()).isTrue();
        assertThat(InterfaceAddress.of(null)).as("every address").isNull();

        Path pod = Files.createDirectories(dir.resolve("pod"));
        Files.writeString(pod.resolve("labels"), "railyard.io/attempt=\"1\"\nrailyard.io/job-index=\"0\"\n");
        CommandRun run = CommandRun.of("await-rank", "--labels", pod.resolve("labels").toString(), "--attempt-file", pod.resolve("attempt").toString(),
                "--barrier-port", "9405", "--nodes", "2", "--master-addr", "127.0.0.1", "--bind-interface", "ib-job9", "--timeout-seconds", "5");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).startsWith("await-rank: --bind-interface ib-job9: no such interface with an address here (it has [").contains("lo");
    }

    @Test
    void needsItsFilesInPairs() {
        CommandRun run = CommandRun.of("await-rank", "--labels", dir.resolve("labels").toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("give --annotations with --env-file, --labels with --attempt-file");
    }
}
