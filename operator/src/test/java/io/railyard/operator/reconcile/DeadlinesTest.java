package io.railyard.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import io.railyard.operator.PlayedScheduler;
import io.railyard.testkit.MovingClock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The operator acting on time with nothing else happening in the cluster: each test moves the operator's clock past a
 * deadline and sends no event. The operator watches namespace ns only ({@code --namespace ns}), so the node-side
 * triggers are shown to reach the jobs of a watched namespace. On the fabric8 CRUD mock API server, with a played
 * scheduler; each test has its own pool of three nodes.
 */
@EnableKubernetesMockClient(crud = true)
class DeadlinesTest {
    static KubernetesClient client;
    static OperatorUnderTest running;
    static PlayedScheduler scheduler;
    static final MovingClock CLOCK = new MovingClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    /** What the operator and the libraries log at WARN and above. */
    static final ListAppender<ILoggingEvent> WARNINGS = new ListAppender<>();

    @BeforeAll
    static void start() {
        WARNINGS.start();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.addAppender(WARNINGS);
        running = OperatorUnderTest.start(client, (namespace, pod) -> Optional.empty(), CLOCK, "ns");
        scheduler = new PlayedScheduler(client, "ns");
    }

    @AfterAll
    static void stop() throws Exception {
        scheduler.close();
        running.close();
    }

    @Test
    void aNodeNotReadyRestartsTheGangWhenThePodsTolerationRunsOut() {
        pool("a", 1);
        create("lost", "a", "");
        String node = running("lost", "0").get("lost-1");

        ready(node, "False");
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(status("lost").restarts).isNull());

        CLOCK.advance(Duration.ofSeconds(301)); // the pods tolerate NotReady for 300 s, as Kubernetes gives them by default

        await().atMost(Duration.ofSeconds(4)).pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> assertThat(status("lost").restarts).isEqualTo(1));
        assertThat(status("lost").restartHistory).singleElement().satisfies(restart -> {
            assertThat(restart.reason).isEqualTo("NodeNotReady");
            assertThat(restart.node).isEqualTo(node);
            assertThat(restart.pod).isEqualTo("lost-1");
            assertThat(restart.message).contains("longer than the pod tolerates (300 s)");
        });
        assertThat(running("lost", "1").values()).doesNotContain(node);
    }

    @Test
    void anRdmaConditionOnAMembersNodeRestartsTheGangOfAWatchedNamespace() {
        pool("b", 2);
        create("port", "b", "");
        String node = running("port", "0").get("port-0");

        condition(node, "RdmaPortDown", "True");

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(status("port").restarts).isEqualTo(1));
        assertThat(status("port").restartHistory.getFirst().node).isEqualTo(node);
    }

    @Test
    void anExcludedNodeLeavesTheStatusWhenItsTimeIsUp() {
        pool("c", 3);
        create("away", "c", ", runPolicy: {nodeExclusionSeconds: 600}");
        String node = running("away", "0").get("away-0");
        condition(node, "RdmaPortDown", "True"); // and it stays down: only the time lets it go
        running("away", "1");
        assertThat(status("away").excludedNodes).singleElement().satisfies(e -> assertThat(e.node).isEqualTo(node));

        CLOCK.advance(Duration.ofSeconds(601));

        await().atMost(Duration.ofSeconds(4)).untilAsserted(() -> assertThat(status("away").excludedNodes).isNull());
    }

    @Test
    void aFinishedJobIsDeletedWhenItsTimeToLiveRunsOut() {
        pool("d", 4);
        create("done", "d", ", runPolicy: {ttlSecondsAfterFinished: 3600}");
        running("done", "0");
        pods("done").forEach(pod -> client.pods().inNamespace("ns").withName(pod.getMetadata().getName())
                .edit(p -> new PodBuilder(p).editStatus().withPhase("Succeeded").endStatus().build()));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(status("done").phase).isEqualTo("Succeeded"));
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(job("done")).isNotNull());

        CLOCK.advance(Duration.ofSeconds(3601));

        await().atMost(Duration.ofSeconds(4)).untilAsserted(() -> assertThat(job("done")).isNull());
    }

    @Test
    void aRunningJobPastItsActiveDeadlineFails() {
        pool("e", 5);
        create("late", "e", ", runPolicy: {activeDeadlineSeconds: 7200}");
        running("late", "0");

        CLOCK.advance(Duration.ofSeconds(7201));

        await().atMost(Duration.ofSeconds(4)).untilAsserted(() -> assertThat(status("late").phase).isEqualTo("Failed"));
        assertThat(status("late").conditions).anySatisfy(c -> assertThat(c.getReason()).isEqualTo("DeadlineExceeded"));
    }

    @Test
    void deletingFailedJobsLogsNoException() {
        create("invalid", "a", ", script: null, module: null");
        pool("f", 6);
        create("expired", "f", ", runPolicy: {activeDeadlineSeconds: 60}");
        running("expired", "0");
        CLOCK.advance(Duration.ofSeconds(61));
        await().atMost(Duration.ofSeconds(4)).untilAsserted(() -> {
            assertThat(status("invalid").phase).isEqualTo("Failed");
            assertThat(status("expired").phase).isEqualTo("Failed");
        });
        int before = WARNINGS.list.size();

        client.resources(TrainingJob.class).inNamespace("ns").withName("invalid").delete();
        client.resources(TrainingJob.class).inNamespace("ns").withName("expired").delete();

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(job("invalid")).isNull();
            assertThat(job("expired")).isNull();
            assertThat(client.services().inNamespace("ns").withName("expired").get()).isNull();
        });
        List<String> logged = WARNINGS.list.subList(before, WARNINGS.list.size()).stream()
                .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN) && e.getThrowableProxy() != null)
                .map(e -> e.getFormattedMessage() + ": " + e.getThrowableProxy().getClassName()).toList();
        assertThat(logged).isEmpty();
    }

    private static void pool(String pool, int index) {
        GangCluster.pool(client, pool, "10.1." + index);
    }

    private static void create(String name, String pool, String extra) {
        GangCluster.create(client, name, pool, extra);
    }

    private static TrainingJob job(String name) {
        return client.resources(TrainingJob.class).inNamespace("ns").withName(name).get();
    }

    private static TrainingJobStatus status(String name) {
        return GangCluster.status(client, name);
    }

    private static List<Pod> pods(String job) {
        return GangCluster.pods(client, job);
    }

    private static Map<String, String> running(String job, String attempt) {
        return GangCluster.running(client, job, attempt);
    }

    private static void ready(String node, String status) {
        condition(node, "Ready", status);
    }

    /** Sets a node condition as of the operator's now. */
    private static void condition(String node, String type, String status) {
        GangCluster.condition(client, node, type, status, "Test", type + " " + status, CLOCK.instant());
    }
}
