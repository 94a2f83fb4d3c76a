package io.railyard.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import io.railyard.diagnose.inspector.IntervalSpeeds;
import io.railyard.diagnose.inspector.JobSpeeds;
import io.railyard.diagnose.inspector.RankSummary;
import io.railyard.operator.PlayedScheduler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Degraded condition from the first pod's nccl-speed line, on the fabric8 CRUD mock API server with a played
 * scheduler. The lines are the sidecar's own (JobSpeeds fed each rank's summary), so the streaks are counted as in a pod.
 */
@EnableKubernetesMockClient(crud = true)
class DegradedTest {
    static KubernetesClient client;
    static OperatorUnderTest running;
    static PlayedScheduler scheduler;
    /** Rank 0's trainer log (NCCL's network lines), and the nccl-speed sidecar's log, by pod. */
    static final Map<String, String> TRAINER = new ConcurrentHashMap<>();
    static final Map<String, String> SPEED = new ConcurrentHashMap<>();
    /** The nccl-speed log requests by job. */
    static final Map<String, AtomicInteger> READS = new ConcurrentHashMap<>();
    static final RankZeroLog LOG_READER = new RankZeroLog() {
        @Override
        public Optional<String> read(String namespace, String pod) {
            return Optional.ofNullable(TRAINER.get(pod));
        }

        @Override
        public Optional<String> speed(String namespace, String pod) {
            READS.computeIfAbsent(pod.substring(0, pod.lastIndexOf('-')), j -> new AtomicInteger()).incrementAndGet();
            return Optional.ofNullable(SPEED.get(pod));
        }
    };

    @BeforeAll
    static void start() throws Exception {
        running = OperatorUnderTest.start(client, LOG_READER, Clock.systemUTC());
        scheduler = new PlayedScheduler(client, "ns");
    }

    @AfterAll
    static void stop() throws Exception {
        scheduler.close();
        running.close();
    }

    private static String verifiedLog() throws Exception {
        return Files.readString(Path.of(System.getProperty("railyard.repo", "..")).resolve("testdata/logs/nccl-ib-gdr-ok-aks-01.log"));
    }

    private static Optional<Condition> degraded(String job) {
        TrainingJobStatus status = GangCluster.status(client, job);
        return status.conditions == null ? Optional.empty() : status.conditions.stream().filter(c -> c.getType().equals("Degraded")).findFirst();
    }

    /** The sidecar's log after {@code intervals} intervals, rank {@code slowRank} at {@code percent}% of the others. */
    private static String speedLog(JobSpeeds job, int intervals, int slowRank, double percent) {
        StringBuilder log = new StringBuilder("nccl-speed: reading /var/run/railyard/nccl-inspector, serving /metrics on port 9403\n");
        for (int i = 0; i < intervals; i++) {
            Instant at = Instant.now();
            for (int rank = 0; rank < 2; rank++) {
                double gbps = rank == slowRank ? 380 * percent / 100 : 380;
                job.add(new RankSummary(String.valueOf(rank), "host", List.of(new IntervalSpeeds.Speed(
                        new IntervalSpeeds.Key("AllReduce", "1 GiB", "0x7f8c496ae9f661"), gbps, gbps * 0.9, 0.005, 180))), at);
            }
            log.append(job.close(at).toJson()).append('\n');
        }
        return log.toString();
    }

    private static void awaitRead(String job) {
        int before = READS.computeIfAbsent(job, j -> new AtomicInteger()).get();
        await().atMost(Duration.ofSeconds(60)).until(() -> READS.get(job).get() > before);
    }

    @Test
    void aRankSlowForThreeIntervalsMakesTheJobDegradedNamingItsPodAndNodeAndFastAgainAfterThreeGoodOnes() throws Exception {
        GangCluster.pool(client, "s", "10.1.0");
        GangCluster.create(client, "slow", "s", ", monitoring: {ncclInspector: {enabled: true, intervalSeconds: 5, windows: 3}}");
        TRAINER.put("slow-0", verifiedLog());
        String node = GangCluster.running(client, "slow", "0").get("slow-1");
        JobSpeeds sidecar = new JobSpeeds(2, 80, 3, Duration.ofSeconds(5));

        SPEED.put("slow-0", speedLog(sidecar, 2, 1, 55));
        awaitRead("slow");
        awaitRead("slow");
        assertThat(degraded("slow")).as("two slow intervals decide nothing").isEmpty();

        SPEED.put("slow-0", speedLog(sidecar, 1, 1, 55));
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(degraded("slow")).get().extracting(Condition::getStatus).isEqualTo("True"));
        Condition condition = degraded("slow").orElseThrow();
        assertThat(condition.getReason()).isEqualTo("RanksSlow");
        assertThat(condition.getMessage()).startsWith("rank 1 in pod slow-1 on node " + node + " at 55.0% of the job's median AllReduce 1 GiB bus bandwidth")
                .endsWith("below 80% for 3 intervals in a row");
        TrainingJobStatus.Performance performance = GangCluster.status(client, "slow").performance;
        assertThat(performance.collective + " " + performance.size).isEqualTo("AllReduce 1 GiB");
        assertThat(performance.slowRanks).singleElement().satisfies(rank -> assertThat(rank.rank + " " + rank.pod + " " + rank.node + " " + rank.percent)
                .isEqualTo("1 slow-1 " + node + " 55.0"));
        assertThat(performance.since).isNotNull();
        assertThat(client.v1().events().inNamespace("ns").list().getItems()).filteredOn(e -> e.getInvolvedObject().getName().equals("slow"))
                .filteredOn(e -> e.getReason().equals("RanksSlow")).singleElement()
                .satisfies(event -> assertThat(event.getType()).isEqualTo("Warning"));
        assertThat(GangCluster.status(client, "slow").restarts).as("a slow rank never restarts the gang").isNull();

        SPEED.put("slow-0", speedLog(sidecar, 2, -1, 100));
        awaitRead("slow");
        awaitRead("slow");
        assertThat(degraded("slow").orElseThrow().getStatus()).as("two good intervals are not enough").isEqualTo("True");
        SPEED.put("slow-0", speedLog(sidecar, 1, -1, 100));
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(degraded("slow").orElseThrow().getStatus()).isEqualTo("False"));
        assertThat(degraded("slow").orElseThrow().getReason()).isEqualTo("RanksEven");
        assertThat(GangCluster.status(client, "slow").performance.slowRanks).isNull();
    }

    @Test
    void noRecordFromAnyRankIsNoDataOnceNcclHasRunLongEnough() throws Exception {
        GangCluster.pool(client, "n", "10.1.1");
        GangCluster.create(client, "quiet", "n", ", monitoring: {ncclInspector: {enabled: true, intervalSeconds: 5, windows: 1}}");
        TRAINER.put("quiet-0", verifiedLog());
        JobSpeeds sidecar = new JobSpeeds(2, 80, 1, Duration.ofSeconds(5));
        StringBuilder empty = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            empty.append(sidecar.close(Instant.now()).toJson()).append('\n');
        }
        SPEED.put("quiet-0", empty.toString());
        GangCluster.running(client, "quiet", "0");

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(degraded("quiet")).get().extracting(Condition::getReason).isEqualTo("NoData"));
        assertThat(degraded("quiet").orElseThrow().getMessage()).isEqualTo("no NCCL Inspector record from any of the 2 pods for 3 intervals:"
                + " put the Inspector plugin (NCCL_PROFILER_PLUGIN=inspector) in the image, with NCCL 2.30 or later");
        assertThat(GangCluster.status(client, "quiet").rdma.verified).isTrue();
    }

    @Test
    void aJobWithoutInspectorNeverAsksForTheLine() throws Exception {
        GangCluster.pool(client, "o", "10.1.2");
        GangCluster.create(client, "plain", "o", "");
        TRAINER.put("plain-0", verifiedLog());
        GangCluster.running(client, "plain", "0");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(GangCluster.status(client, "plain").rdma).isNotNull());
        long reconciles = running.reconciler().metrics().reconciles();
        client.resources(TrainingJob.class).inNamespace("ns").withName("plain").edit(job -> {
            job.getMetadata().setLabels(Map.of("touched", "1")); // one more reconcile while it runs
            return job;
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> running.reconciler().metrics().reconciles() > reconciles);
        assertThat(READS.get("plain")).isNull();
        assertThat(degraded("plain")).isEmpty();
    }
}
