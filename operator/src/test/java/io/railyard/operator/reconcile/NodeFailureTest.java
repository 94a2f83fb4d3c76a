package io.railyard.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import io.railyard.operator.PlayedScheduler;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Gangs that route around failures, on the fabric8 CRUD mock API server (no real API server can be had in tests) with
 * a played scheduler that honours required node affinity and taints. Each test has its own pool of three nodes.
 */
@EnableKubernetesMockClient(crud = true)
class NodeFailureTest {
    static KubernetesClient client;
    static OperatorUnderTest running;
    static PlayedScheduler scheduler;
    static final Map<String, String> LOGS = new ConcurrentHashMap<>();
    /** The nccl-watch sidecars' logs by pod. */
    static final Map<String, String> WATCH = new ConcurrentHashMap<>();
    static final RankZeroLog LOG_READER = new RankZeroLog() {
        @Override
        public Optional<String> read(String namespace, String pod) {
            return Optional.ofNullable(LOGS.get(pod));
        }

        @Override
        public Optional<String> watch(String namespace, String pod) {
            return Optional.ofNullable(WATCH.get(pod));
        }
    };
    static final Clock CLOCK = Clock.systemUTC();

    @BeforeAll
    static void start() {
        running = OperatorUnderTest.start(client, LOG_READER, CLOCK);
        scheduler = new PlayedScheduler(client, "ns");
    }

    @AfterAll
    static void stop() throws Exception {
        scheduler.close();
        running.close();
    }

    /** Three Ready RDMA nodes pool-1, pool-2, pool-3 labelled pool=POOL, with addresses 10.0.POOL_INDEX.1-3. */
    private static void pool(String pool, int index) {
        GangCluster.pool(client, pool, "10.0." + index);
    }

    private static TrainingJob create(String name, String pool, String extra) {
        return GangCluster.create(client, name, pool, extra);
    }

    private static TrainingJobStatus status(String job) {
        return GangCluster.status(client, job);
    }

    private static Condition condition(String job, String type) {
        return status(job).conditions.stream().filter(c -> c.getType().equals(type)).findFirst().orElseThrow();
    }

    /** The job's Restarting events, as "reason: message". */
    private static List<String> restartEvents(String job) {
        return client.v1().events().inNamespace("ns").list().getItems().stream()
                .filter(e -> e.getInvolvedObject().getName().equals(job) && e.getMessage().startsWith("Restarting: "))
                .map(e -> e.getReason() + ": " + e.getMessage()).toList();
    }

    private static List<Pod> pods(String job) {
        return GangCluster.pods(client, job);
    }

    /** The gang's pods, once all of them run on a node, by name. */
    private static Map<String, String> running(String job, String attempt) {
        return GangCluster.running(client, job, attempt);
    }

    private static void fail(String pod, int exitCode) {
        client.pods().inNamespace("ns").withName(pod).edit(p -> new PodBuilder(p).editStatus().withPhase("Failed").addNewContainerStatus()
                .withName("trainer").withNewState().withNewTerminated().withExitCode(exitCode).withReason("Error").endTerminated().endState()
                .endContainerStatus().endStatus().build());
    }

    private static void failIfThere(String pod, int exitCode) {
        try {
            fail(pod, exitCode);
        } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
            assertThat(e.getCode()).isEqualTo(404);
        }
    }

    private static void nodeCondition(String node, String type, String status) {
        GangCluster.condition(client, node, type, status, status.equals("True") ? "PortNotActive" : "PortsActive", "mlx5_3 port 1: DOWN/Polling",
                CLOCK.instant());
    }

    private static List<String> notIn(Pod pod) {
        return pod.getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms()
                .getFirst().getMatchExpressions().stream().filter(e -> e.getOperator().equals("NotIn"))
                .map(NodeSelectorRequirement::getValues).findFirst().orElse(List.of());
    }

    @Test
    void aPodFailingOnANodeWithRdmaPortDownIsRecreatedAwayFromItAsANodeFailure() {
        pool("a", 1);
        create("port", "a", ", runPolicy: {backoffLimit: 0}");
        String broken = running("port", "0").get("port-0");

        nodeCondition(broken, "RdmaPortDown", "True");
        failIfThere("port-0", 1); // the operator may have restarted the gang on the condition alone: the same outcome

        Map<String, String> second = running("port", "1");
        assertThat(second.values()).doesNotContain(broken);
        TrainingJobStatus status = status("port");
        assertThat(status.nodeFailures).isEqualTo(1);
        assertThat(status.jobFailures).as("backoffLimit 0 is untouched by the node's fault").isNull();
        assertThat(status.restarts).isEqualTo(1);
        assertThat(status.excludedNodes).singleElement().satisfies(e -> {
            assertThat(e.node).isEqualTo(broken);
            assertThat(e.reason).isEqualTo("RdmaPortDown");
        });
        assertThat(pods("port")).allSatisfy(pod -> assertThat(notIn(pod)).containsExactly(broken));
        assertThat(scheduler.bindings()).filteredOn(b -> b.pod().startsWith("port-") && !"0".equals(b.attempt()))
                .isNotEmpty().noneMatch(b -> b.node().equals(broken));
    }

    @Test
    void aPodFailingOnANodeThatTurnedNotReadyBlamesTheNodeThoughThePodStillToleratesIt() {
        pool("i", 9);
        create("lost", "i", ", runPolicy: {backoffLimit: 0}");
        String node = running("lost", "0").get("lost-1");

        nodeCondition(node, "Ready", "False"); // within the pods' 300 s toleration: no restart for this alone
        fail("lost-1", 137);

        Map<String, String> second = running("lost", "1");
        assertThat(second.values()).doesNotContain(node);
        assertThat(status("lost").nodeFailures).isEqualTo(1);
        assertThat(status("lost").restartHistory).singleElement().satisfies(restart -> {
            assertThat(restart.reason).isEqualTo("NodeNotReady");
            assertThat(restart.exitCode).isEqualTo(137);
            assertThat(restart.message).contains("pod lost-1 container trainer exited with code 137", "node " + node + " is NotReady");
        });
        assertThat(restartEvents("lost")).singleElement().satisfies(event -> assertThat(event).startsWith("NodeFailure: "));
    }

    @Test
    void theTrainerExitingOneOnHealthyNodesIsTheJobsOwnFailure() {
        pool("b", 2);
        create("crash", "b", "");
        String node = running("crash", "0").get("crash-1");

        fail("crash-1", 1);

        running("crash", "1");
        TrainingJobStatus status = status("crash");
        assertThat(status.jobFailures).isEqualTo(1);
        assertThat(status.nodeFailures).isNull();
        assertThat(status.excludedNodes).isNull();
        assertThat(status.restartHistory).singleElement().satisfies(restart -> {
            assertThat(restart.cause).isEqualTo("Job");
            assertThat(restart.reason).isEqualTo("ContainerFailed");
            assertThat(restart.pod).isEqualTo("crash-1");
            assertThat(restart.node).isEqualTo(node);
            assertThat(restart.exitCode).isEqualTo(1);
        });
        assertThat(restartEvents("crash")).singleElement().satisfies(event -> assertThat(event).startsWith("GangFailed: Restarting: pod crash-1"));
        assertThat(running.reconciler().metrics().gangRestarts("Job")).isGreaterThanOrEqualTo(1);
    }

    @Test
    void aRunningGangWhoseNodeGetsAnRdmaConditionRestartsWithinFiveSeconds() {
        pool("c", 3);
        create("early", "c", "");
        assertThat(running("early", "0").values()).contains("c-2");

        nodeCondition("c-2", "RdmaPortDown", "True");

        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> assertThat(status("early").restarts).isEqualTo(1));
        assertThat(restartEvents("early")).singleElement().satisfies(event -> assertThat(event).startsWith("NodeUnhealthy: ")
                .contains("node c-2 RdmaPortDown: PortNotActive: mlx5_3 port 1: DOWN/Polling under pod early-", "1 node failure"));
        assertThat(status("early").nodeFailures).isEqualTo(1);
        assertThat(running("early", "1").values()).doesNotContain("c-2");
    }

    @Test
    void anExcludedNodeThatRecoversMayBeUsedAgain() {
        pool("d", 4);
        create("heal", "d", "");
        String broken = running("heal", "0").get("heal-0");
        nodeCondition(broken, "RdmaPortDown", "True");
        Map<String, String> second = running("heal", "1");
        assertThat(second.values()).doesNotContain(broken);

        nodeCondition(broken, "RdmaPortDown", "False");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(status("heal").excludedNodes).isNull());
        // cordoned, so that the next run needs the node that recovered
        client.nodes().withName(second.get("heal-1")).edit(n -> new NodeBuilder(n).editOrNewSpec().addNewTaint().withKey("test/cordoned")
                .withEffect("NoSchedule").endTaint().endSpec().build());
        fail("heal-0", 1);

        assertThat(running("heal", "2").values()).contains(broken);
        assertThat(pods("heal")).allSatisfy(pod -> assertThat(notIn(pod)).isEmpty());
    }

    @Test
    void aPreemptedPodCountsTowardNeitherLimit() {
        pool("e", 5);
        create("bumped", "e", ", runPolicy: {backoffLimit: 0, nodeFailureLimit: 0}");
        running("bumped", "0");

        client.pods().inNamespace("ns").withName("bumped-0").edit(p -> new PodBuilder(p).editStatus().withPhase("Failed")
                .addNewCondition().withType("DisruptionTarget").withStatus("True").withReason("PreemptionByScheduler")
                .withMessage("Preempted by pod 5c3a of a higher priority").endCondition().endStatus().build());

        running("bumped", "1");
        TrainingJobStatus status = status("bumped");
        assertThat(status.restarts).isEqualTo(1);
        assertThat(status.jobFailures).isNull();
        assertThat(status.nodeFailures).isNull();
        assertThat(status.excludedNodes).isNull();
        assertThat(status.restartHistory).singleElement().satisfies(restart -> assertThat(restart.cause).isEqualTo("Preemption"));
        assertThat(restartEvents("bumped")).singleElement().satisfies(event -> assertThat(event).startsWith("Preempted: "));
    }

    @Test
    void eachLimitEndsTheJobWithItsOwnReason() {
        pool("f", 6);
        create("own", "f", ", runPolicy: {backoffLimit: 0}");
        create("nodes", "f", ", runPolicy: {nodeFailureLimit: 0}");
        running("own", "0");
        running("nodes", "0");

        fail("own-0", 2);
        nodeCondition(pods("nodes").getFirst().getSpec().getNodeName(), "RdmaLinkFlapping", "True");

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(status("own").phase).isEqualTo("Failed");
            assertThat(status("nodes").phase).isEqualTo("Failed");
        });
        assertThat(condition("own", "Failed").getReason()).isEqualTo("BackoffLimitExceeded");
        assertThat(condition("own", "Failed").getMessage()).contains("exited with code 2", "backoffLimit 0");
        assertThat(condition("nodes", "Failed").getReason()).isEqualTo("NodeFailureLimitExceeded");
        assertThat(condition("nodes", "Failed").getMessage()).contains("RdmaLinkFlapping", "nodeFailureLimit 0");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pods("own")).isEmpty());
        assertThat(pods("nodes")).isEmpty();
    }

    @Test
    void rankZerosNcclLogBlamesThePeerThatNeverAcknowledged() throws Exception {
        pool("g", 7);
        create("nccl", "g", "");
        Map<String, String> first = running("nccl", "0");
        String peer = first.get("nccl-1");
        String address = "10.0.7." + peer.substring(peer.length() - 1);
        LOGS.put("nccl-0", "nccl-0:3468:3905 [4] transport/net_ib.cc:1615 NCCL WARN NET/IB : Got completion from peer " + address + "<54862>"
                + " with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.0.7.9 remoteGids::ffff:" + address + "\n");

        fail("nccl-0", 1);

        assertThat(running("nccl", "1").values()).doesNotContain(peer);
        assertThat(status("nccl").excludedNodes).singleElement().satisfies(e -> assertThat(e.node + " " + e.reason).isEqualTo(peer + " NcclCompletionError"));
        assertThat(status("nccl").restartHistory.getLast().message).contains("rank 0's NCCL log blames node " + peer);
    }

    @Test
    void anOperatorThatStoppedBetweenWritingARestartAndDeletingThePodsFinishesItOnce() {
        pool("h", 8);
        create("resume", "h", "");
        Map<String, String> first = running("resume", "0");
        running.close();
        // what the stopped operator had written: the restart, counted and with its exclusion, before any pod was deleted
        client.resources(TrainingJob.class).inNamespace("ns").withName("resume").editStatus(job -> {
            TrainingJobStatus.ExcludedNode excluded = new TrainingJobStatus.ExcludedNode();
            excluded.node = first.get("resume-1");
            excluded.reason = "RdmaPortDown";
            excluded.since = CLOCK.instant().toString();
            job.getStatus().restarts = 1;
            job.getStatus().nodeFailures = 1;
            job.getStatus().excludedNodes = List.of(excluded);
            job.getStatus().phase = "Pending";
            return job;
        });
        nodeCondition(first.get("resume-1"), "RdmaPortDown", "True");

        running = OperatorUnderTest.start(client, LOG_READER, CLOCK);

        Map<String, String> second = running("resume", "1");
        assertThat(second.values()).doesNotContain(first.get("resume-1"));
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(pods("resume")).hasSize(2).allSatisfy(pod -> assertThat(pod.getMetadata().getLabels()).containsEntry(Names.ATTEMPT_LABEL, "1"));
            assertThat(status("resume").restarts).isEqualTo(1);
        });
        assertThat(status("resume").excludedNodes).extracting(e -> e.node).containsExactly(first.get("resume-1"));
    }

    private static String podIp(String pod) {
        return client.pods().inNamespace("ns").withName(pod).get().getStatus().getPodIP();
    }

    /** One line as nccl-watch -o json writes it, naming a rank by its address. */
    private static String watchLine(String state, String address) {
        return "{\"time\":\"2026-11-30T12:00:00Z\",\"state\":\"" + state + "\",\"ncclVersion\":\"2.29.2\",\"communicators\":1,"
                + "\"ranks\":[{\"rank\":9,\"host\":\"" + address + "\",\"pid\":4242,\"cudaDev\":1,\"reason\":\"AllReduce launched up to 181"
                + " while other ranks are at 231\"}],\"message\":\"no collective count moved for 301 s: rank 9 on " + address + "\"}\n";
    }

    @Test
    void aStalledVerdictOfTheSidecarNamesThePodAndNodeOfTheRank() {
        pool("j", 10);
        create("hang", "j", ", monitoring: {hangDetection: {intervalSeconds: 5}}");
        String node = running("hang", "0").get("hang-1");
        String address = podIp("hang-1");

        WATCH.put("hang-0", "{\"time\":\"2026-11-30T11:55:00Z\",\"state\":\"healthy\",\"ranks\":[],\"message\":\"1 communicators progressing\"}\n"
                + watchLine("stalled", address));

        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> assertThat(condition("hang", "Stalled").getStatus()).isEqualTo("True"));
        assertThat(condition("hang", "Stalled").getReason()).isEqualTo("NoProgress");
        assertThat(condition("hang", "Stalled").getMessage()).endsWith("(rank 9 in pod hang-1 on node " + node + ")");
        assertThat(status("hang").stall.ranks).singleElement().satisfies(rank -> assertThat(rank.pod + " " + rank.node).isEqualTo("hang-1 " + node));
        assertThat(status("hang").restarts).as("restart is not asked for").isNull();

        WATCH.put("hang-0", "{\"time\":\"2026-11-30T12:10:00Z\",\"state\":\"healthy\",\"ranks\":[],\"message\":\"1 communicators progressing\"}\n");
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> assertThat(condition("hang", "Stalled").getStatus()).isEqualTo("False"));
        assertThat(status("hang").stall).isNull();
    }

    @Test
    void withRestartAMissingRankRestartsTheGangAwayFromItsNode() {
        pool("k", 11);
        create("gone", "k", ", monitoring: {hangDetection: {intervalSeconds: 5, restart: true}}");
        String node = running("gone", "0").get("gone-1");
        String address = podIp("gone-1");

        WATCH.put("gone-0", watchLine("missing", address));

        assertThat(running("gone", "1").values()).doesNotContain(node);
        assertThat(status("gone").excludedNodes).singleElement().satisfies(e -> assertThat(e.node + " " + e.reason).isEqualTo(node + " RanksMissing"));
        assertThat(status("gone").restartHistory.getLast().message).startsWith("nccl-watch: ");
        assertThat(restartEvents("gone")).singleElement().satisfies(event -> assertThat(event).startsWith("Stalled: "));
    }
}
