package io.railyard.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import io.railyard.operator.PlayedKubelet;
import io.railyard.operator.PlayedScheduler;
import io.railyard.operator.model.OperatorDefaults;
import java.time.Clock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Gangs restarted in place, on the fabric8 CRUD mock API server (no real API server can be had in tests) with a played
 * scheduler and played kubelets that restart pods in place as KEP-5532 ships it. Each test has its own pool of three nodes.
 */
@EnableKubernetesMockClient(crud = true)
class InPlaceRestartTest {
    static KubernetesClient client;
    static OperatorUnderTest running;
    static PlayedScheduler scheduler;
    static PlayedKubelet kubelet;
    static final Clock CLOCK = Clock.systemUTC();
    static final RankZeroLog NO_LOGS = (namespace, pod) -> Optional.empty();
    static final OperatorDefaults IN_PLACE = new OperatorDefaults("railyard:test", "rdma/rdma").withInPlaceRestart(true);

    @BeforeAll
    static void start() {
        running = OperatorUnderTest.start(client, NO_LOGS, CLOCK, IN_PLACE);
        scheduler = new PlayedScheduler(client, "ns");
        kubelet = new PlayedKubelet(client, "ns", CLOCK);
    }

    @AfterAll
    static void stop() throws Exception {
        kubelet.close();
        scheduler.close();
        running.close();
    }

    private static TrainingJobStatus status(String job) {
        return GangCluster.status(client, job);
    }

    /** The gang's pods by name: their UID and node. */
    private static Map<String, String> identities(String job) {
        return GangCluster.pods(client, job).stream().collect(Collectors.toMap(p -> p.getMetadata().getName(),
                p -> p.getMetadata().getUid() + "@" + p.getSpec().getNodeName(), (a, b) -> a, TreeMap::new));
    }

    /** The gang running its attempt again: every pod labelled with it and its trainer running, the job Running. */
    private static void runsAttempt(String job, String attempt) {
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(GangCluster.pods(client, job)).hasSize(2).allSatisfy(pod -> {
                assertThat(pod.getMetadata().getLabels()).containsEntry(Names.ATTEMPT_LABEL, attempt);
                assertThat(pod.getStatus().getContainerStatuses()).anySatisfy(s -> assertThat(s.getState().getRunning()).isNotNull());
            });
            assertThat(status(job).phase).isEqualTo("Running");
        });
    }

    @Test
    void aRanksOwnFailureRestartsTheGangInPlaceWithNoPodDeleted() {
        GangCluster.pool(client, "own", "10.1.1");
        GangCluster.create(client, "own", "own", "");
        GangCluster.running(client, "own", "0");
        runsAttempt("own", "0");
        Map<String, String> before = identities("own");
        int bindings = scheduler.bindings().size();

        kubelet.failTrainer("own-1", 3);

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(status("own").restarts).isEqualTo(1));
        runsAttempt("own", "1");
        TrainingJobStatus.Restart restart = status("own").restartHistory.getLast();
        assertThat(restart.strategy).isEqualTo("InPlace");
        assertThat(restart.cause).isEqualTo("Job");
        assertThat(restart.exitCode).isEqualTo(3);
        assertThat(restart.pod).isEqualTo("own-1");
        assertThat(restart.restartedInPlace).isEqualTo(2);
        assertThat(restart.replaced).isZero();
        assertThat(identities("own")).isEqualTo(before);
        assertThat(scheduler.bindings()).hasSize(bindings);
        // own-1 waited in await-rank and ran the new attempt without another restart; own-0's sidecar restarted it
        assertThat(kubelet.restartsInPlace()).contains("own-0@1").doesNotContain("own-1@1");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(status("own").restartHistory.getLast().recoverySeconds).isNotNull());
        assertThat(status("own").restarts).as("the trainers' restart counts of the new attempt are no new failure").isEqualTo(1);
    }

    @Test
    void aNodeFaultReplacesOnlyThePodOnTheBlamedNode() {
        GangCluster.pool(client, "fault", "10.1.2");
        GangCluster.create(client, "fault", "fault", "");
        Map<String, String> placed = GangCluster.running(client, "fault", "0");
        runsAttempt("fault", "0");
        Map<String, String> before = identities("fault");
        String bad = placed.get("fault-0");

        GangCluster.condition(client, bad, "RdmaPortDown", "True", "PortNotActive", "mlx5_3 port 1: DOWN", CLOCK.instant());

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(status("fault").restarts).isEqualTo(1));
        runsAttempt("fault", "1");
        TrainingJobStatus.Restart restart = status("fault").restartHistory.getLast();
        assertThat(restart.strategy).isEqualTo("InPlace");
        assertThat(restart.cause).isEqualTo("Node");
        assertThat(restart.node).isEqualTo(bad);
        assertThat(restart.restartedInPlace).isOne();
        assertThat(restart.replaced).isOne();
        Map<String, String> after = identities("fault");
        assertThat(after.get("fault-1")).as("kept its UID and node").isEqualTo(before.get("fault-1"));
        assertThat(after.get("fault-0")).doesNotContain(bad).isNotEqualTo(before.get("fault-0"));
        assertThat(kubelet.restartsInPlace()).contains("fault-1@1");
    }

    @Test
    void aGangItsQueueIsTakingAwayIsReplacedNotRestartedInPlace() {
        // Kueue v0.19 marks each pod of a preempted pod group so, then deletes it: restarting it in place would keep nothing
        Pod preempted = new PodBuilder().withNewMetadata().withName("low-0").addToLabels(Names.INDEX_LABEL, "0").endMetadata()
                .withNewSpec().withNodeName("gpu-1").endSpec().withNewStatus().withPhase("Running").addNewCondition()
                .withType("TerminationTarget").withStatus("True").withReason("WorkloadEvictedDueToPreempted").endCondition().endStatus().build();
        Pod healthy = new PodBuilder().withNewMetadata().withName("own-1").addToLabels(Names.INDEX_LABEL, "1").endMetadata()
                .withNewSpec().withNodeName("gpu-2").endSpec().withNewStatus().withPhase("Running").endStatus().build();

        InPlaceRestart.Plan plan = InPlaceRestart.plan(List.of(preempted, healthy), java.util.Set.of());

        assertThat(plan.replaced()).containsExactly(preempted);
        assertThat(plan.inPlace()).containsExactly(healthy);
    }

    @Test
    void recreateDeletesEveryPodAsBefore() {
        GangCluster.pool(client, "recreate", "10.1.3");
        GangCluster.create(client, "recreate", "recreate", ", runPolicy: {restartStrategy: Recreate}");
        GangCluster.running(client, "recreate", "0");
        Map<String, String> before = identities("recreate");
        assertThat(GangCluster.pods(client, "recreate")).allSatisfy(pod -> assertThat(pod.getSpec().getInitContainers())
                .noneMatch(c -> c.getName().equals("restart-watch")));

        client.pods().inNamespace("ns").withName("recreate-1").delete();

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(status("recreate").restarts).isEqualTo(1));
        GangCluster.running(client, "recreate", "1");
        TrainingJobStatus.Restart restart = status("recreate").restartHistory.getLast();
        assertThat(restart.strategy).isEqualTo("Recreate");
        assertThat(restart.replaced).isEqualTo(2);
        assertThat(identities("recreate").values()).doesNotContainAnyElementsOf(before.values());
    }

    @Test
    void anOperatorStoppedAfterItCountedTheRestartMovesThePodsInPlaceWhenItStartsAgain() throws Exception {
        GangCluster.pool(client, "resume", "10.1.4");
        GangCluster.create(client, "resume", "resume", "");
        GangCluster.running(client, "resume", "0");
        runsAttempt("resume", "0");
        Map<String, String> before = identities("resume");
        running.close();
        try {
            // what an operator that stopped between writing the restart and patching the pods leaves behind
            client.resources(TrainingJob.class).inNamespace("ns").withName("resume").editStatus(job -> {
                TrainingJobStatus.Restart restart = new TrainingJobStatus.Restart();
                restart.time = CLOCK.instant().truncatedTo(ChronoUnit.SECONDS).toString();
                restart.cause = "Job";
                restart.reason = "ContainerFailed";
                restart.strategy = "InPlace";
                job.getStatus().restarts = 1;
                job.getStatus().jobFailures = 1;
                job.getStatus().restartHistory = List.of(restart);
                job.getStatus().phase = "Pending";
                return job;
            });
        } finally {
            running = OperatorUnderTest.start(client, NO_LOGS, CLOCK, IN_PLACE);
        }

        runsAttempt("resume", "1");
        // a pod moved to attempt 1 still shows its old run until the played kubelet restarts it: wait for both restarts
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(kubelet.restartsInPlace()).contains("resume-0@1", "resume-1@1"));
        assertThat(identities("resume")).isEqualTo(before);
        assertThat(status("resume").restarts).isEqualTo(1);
    }

    @Test
    void inPlacePodsCarryTheSidecarAndTheRules() {
        GangCluster.pool(client, "shape", "10.1.5");
        GangCluster.create(client, "shape", "shape", ", runPolicy: {restartStrategy: InPlace}");
        GangCluster.running(client, "shape", "0");
        Pod pod = GangCluster.pods(client, "shape").getFirst();

        assertThat(pod.getSpec().getInitContainers()).extracting(c -> c.getName()).containsSubsequence("await-rank", "restart-watch");
        assertThat(pod.getSpec().getContainers().getFirst().getRestartPolicy()).isEqualTo("Never");
        assertThat(pod.getSpec().getContainers().getFirst().getRestartPolicyRules()).singleElement().satisfies(rule -> {
            assertThat(rule.getAction()).isEqualTo("RestartAllContainers");
            assertThat(rule.getExitCodes().getOperator()).isEqualTo("NotIn");
            assertThat(rule.getExitCodes().getValues()).containsExactly(0);
        });
        var watch = pod.getSpec().getInitContainers().stream().filter(c -> c.getName().equals("restart-watch")).findFirst().orElseThrow();
        assertThat(watch.getRestartPolicy()).isEqualTo("Always");
        assertThat(watch.getRestartPolicyRules()).singleElement().satisfies(rule -> {
            assertThat(rule.getAction()).isEqualTo("RestartAllContainers");
            assertThat(rule.getExitCodes().getOperator()).isEqualTo("In");
            assertThat(rule.getExitCodes().getValues()).containsExactly(86);
        });
    }

    private static Pod pod(String name) {
        return client.pods().inNamespace("ns").withName(name).get();
    }

    private static int sparesReady(String job) {
        TrainingJobStatus.Spares spares = status(job).spares;
        return spares == null || spares.ready == null ? 0 : spares.ready;
    }

    /** A 2-node job with one spare on a pool of five nodes, running with its spare ready. */
    private static void runningWithASpare(String job, String subnet) {
        GangCluster.pool(client, job, subnet, 5);
        GangCluster.create(client, job, job, ", spareNodes: 1");
        GangCluster.running(client, job, "0");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(sparesReady(job)).isOne());
    }

    @Test
    void aNodeFaultPromotesASpareRestartsTheRestInPlaceAndRefillsThePool() {
        runningWithASpare("hot", "10.1.6");
        Pod spare = pod("hot-spare-0");
        assertThat(spare.getMetadata().getLabels()).containsEntry(Names.SPARE_LABEL, "true").doesNotContainKeys(Names.INDEX_LABEL, Names.ATTEMPT_LABEL);
        assertThat(scheduler.bindings()).extracting(PlayedScheduler.Binding::pod).containsSubsequence("hot-0", "hot-spare-0")
                .containsSubsequence("hot-1", "hot-spare-0"); // the spare came once the gang ran
        String rankZero = pod("hot-0").getMetadata().getUid();
        String bad = pod("hot-1").getSpec().getNodeName();

        GangCluster.condition(client, bad, "RdmaPortDown", "True", "PortNotActive", "mlx5_1 port 1: DOWN", CLOCK.instant());

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(status("hot").restarts).isEqualTo(1));
        runsAttempt("hot", "1");
        TrainingJobStatus.Restart restart = status("hot").restartHistory.getLast();
        assertThat(restart.strategy).isEqualTo("InPlace");
        assertThat(restart.restartedInPlace).isOne();
        assertThat(restart.promoted).isOne();
        assertThat(restart.replaced).isZero();
        Pod promoted = pod("hot-spare-0");
        assertThat(promoted.getMetadata().getUid()).isEqualTo(spare.getMetadata().getUid());
        // the patch sets the spare label to null, which an API server removes; the mock server keeps a null value
        assertThat(promoted.getMetadata().getLabels()).containsEntry(Names.INDEX_LABEL, "1").containsEntry(Names.ATTEMPT_LABEL, "1")
                .doesNotContainEntry(Names.SPARE_LABEL, "true");
        assertThat(promoted.getMetadata().getAnnotations()).containsEntry(Names.NODE_RANK_ANNOTATION, "1")
                .containsEntry(Names.MASTER_ADDR_ANNOTATION, "hot-0.hot.ns.svc");
        assertThat(pod("hot-1")).as("no pod created in the failed rank's place").isNull();
        assertThat(pod("hot-0").getMetadata().getUid()).isEqualTo(rankZero);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(pod("hot-spare-1")).isNotNull();
            assertThat(pod("hot-spare-1").getSpec().getNodeName()).isNotEqualTo(bad);
            assertThat(sparesReady("hot")).isOne();
        });
    }

    @Test
    void aSparesBadNodeGetsItReplacedAndAFinishedGangsSparesGo() {
        runningWithASpare("cold", "10.1.7");
        String spareNode = pod("cold-spare-0").getSpec().getNodeName();

        GangCluster.condition(client, spareNode, "RdmaPortDown", "True", "PortNotActive", "mlx5_0 port 1: DOWN", CLOCK.instant());

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(pod("cold-spare-0")).isNull();
            assertThat(pod("cold-spare-1")).isNotNull();
            assertThat(pod("cold-spare-1").getSpec().getNodeName()).isNotNull().isNotEqualTo(spareNode);
        });
        assertThat(status("cold").restarts).as("a spare is no member: the gang ran on").isNull();
        assertThat(status("cold").excludedNodes).extracting(e -> e.node).containsExactly(spareNode);

        for (String member : List.of("cold-0", "cold-1")) {
            client.pods().inNamespace("ns").withName(member).editStatus(p -> {
                p.getStatus().setPhase("Succeeded");
                return p;
            });
        }
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(status("cold").phase).isEqualTo("Succeeded");
            assertThat(pod("cold-spare-1")).isNull();
        });
    }
}
