package io.railyard.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** Whose fault a gang's failure is, from pods and nodes as the API server holds them and rank 0's real NCCL lines. */
class FailureBlameTest {
    private static final Path LOGS = Path.of(System.getProperty("railyard.repo", "..")).resolve("testdata/logs");

    private static Pod running(String name, String node, String ip) {
        return new PodBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec().withNodeName(node).endSpec()
                .withNewStatus().withPhase("Running").withPodIP(ip).withHostIP(ip).endStatus().build();
    }

    private static Pod exited(Pod pod, int code) {
        return new PodBuilder(pod).editStatus().withPhase("Failed").addNewContainerStatus().withName("trainer").withNewState()
                .withNewTerminated().withExitCode(code).withReason("Error").endTerminated().endState().endContainerStatus().endStatus().build();
    }

    private static Pod disrupted(Pod pod, String reason) {
        return new PodBuilder(pod).editStatus().withPhase("Failed").addNewCondition().withType("DisruptionTarget").withStatus("True")
                .withReason(reason).withMessage("by the test's cluster").endCondition().endStatus().build();
    }

    private static Node healthy(String name) {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata().withNewStatus().addNewCondition().withType("Ready")
                .withStatus("True").endCondition().endStatus().build();
    }

    private static Function<String, Optional<Node>> nodes(Node... nodes) {
        Map<String, Node> byName = new java.util.HashMap<>();
        for (Node node : nodes) {
            byName.put(node.getMetadata().getName(), node);
        }
        return name -> Optional.ofNullable(byName.get(name));
    }

    private static FailureBlame.Blame blame(List<Pod> members, Function<String, Optional<Node>> nodes, String log) {
        GangState gang = GangState.observe(members.size(), "job", members, Set.of());
        return FailureBlame.of(gang.failure().orElseThrow(), gang.failed(), members, nodes, () -> Optional.ofNullable(log));
    }

    @Test
    void theTrainerExitingOnHealthyNodesIsTheJobsOwn() {
        List<Pod> gang = List.of(exited(running("job-0", "gpu-1", "10.0.0.1"), 1), running("job-1", "gpu-2", "10.0.0.2"));

        FailureBlame.Blame blame = blame(gang, nodes(healthy("gpu-1"), healthy("gpu-2")), null);

        assertThat(blame).isEqualTo(new FailureBlame.Blame(FailureBlame.Cause.JOB, "ContainerFailed", "gpu-1", "job-0", 1,
                "pod job-0 container trainer exited with code 1 (Error)"));
    }

    @Test
    void theFailedPodsNodeThenAnyMembersNodeIsBlamedBeforeTheLogIsRead() {
        Node portDown = new NodeBuilder(healthy("gpu-2")).editStatus().addNewCondition().withType("RdmaPortDown").withStatus("True")
                .withReason("PortNotActive").withMessage("mlx5_3 port 1: DOWN/Polling").endCondition().endStatus().build();
        List<Pod> gang = List.of(exited(running("job-0", "gpu-1", "10.0.0.1"), 1), running("job-1", "gpu-2", "10.0.0.2"));
        AtomicInteger reads = new AtomicInteger();
        GangState state = GangState.observe(2, "job", gang, Set.of());

        FailureBlame.Blame blame = FailureBlame.of(state.failure().orElseThrow(), state.failed(), gang, nodes(healthy("gpu-1"), portDown), () -> {
            reads.incrementAndGet();
            return Optional.empty();
        });

        assertThat(blame.cause()).isEqualTo(FailureBlame.Cause.NODE);
        assertThat(blame.reason()).isEqualTo("RdmaPortDown");
        assertThat(blame.node()).isEqualTo("gpu-2");
        assertThat(blame.pod()).isEqualTo("job-0");
        assertThat(blame.exitCode()).isEqualTo(1);
        assertThat(blame.message()).isEqualTo("pod job-0 container trainer exited with code 1 (Error); node gpu-2 RdmaPortDown: PortNotActive: mlx5_3 port 1: DOWN/Polling");
        assertThat(reads).as("no log request when a node shows its fault").hasValue(0);
    }

    @Test
    void preemptionIsNobodysAndAnEvictionForTheNodeIsTheNodes() {
        Function<String, Optional<Node>> nodes = nodes(healthy("gpu-1"), healthy("gpu-2"));
        Pod other = running("job-1", "gpu-2", "10.0.0.2");

        assertThat(blame(List.of(disrupted(running("job-0", "gpu-1", null), "PreemptionByScheduler"), other), nodes, null).cause())
                .isEqualTo(FailureBlame.Cause.PREEMPTION);
        assertThat(blame(List.of(disrupted(running("job-0", "gpu-1", null), "EvictionByEvictionAPI"), other), nodes, null).cause())
                .as("a drain, or a queue preempting through the Eviction API").isEqualTo(FailureBlame.Cause.PREEMPTION);
        assertThat(blame(List.of(disrupted(running("job-0", "gpu-1", null), "TerminationByKubelet"), other), nodes, null))
                .satisfies(b -> assertThat(b.cause() + " " + b.reason() + " " + b.node()).isEqualTo("NODE Evicted gpu-1"));
        Pod lost = new PodBuilder(running("job-0", "gpu-1", null)).editStatus().withPhase("Unknown").endStatus().build();
        assertThat(blame(List.of(lost, other), nodes, null).reason()).isEqualTo("NodeLost");
        Pod shutdown = new PodBuilder(running("job-0", "gpu-1", null)).editStatus().withPhase("Failed").withReason("Terminated")
                .withMessage("Pod was terminated in response to imminent node shutdown.").endStatus().build();
        assertThat(blame(List.of(shutdown, other), nodes, null).reason()).isEqualTo("NodeShutdown");
    }

    @Test
    void kueueEvictingTheGangsWorkloadIsAPreemptionWhetherItsPodsStillShowItOrAreGone() {
        Function<String, Optional<Node>> nodes = nodes(healthy("gpu-1"), healthy("gpu-2"));
        // what Kueue v0.19 applies to each pod of a preempted pod group before it deletes it (pod_controller.go, Stop)
        Pod stopped = new PodBuilder(running("job-0", "gpu-1", null)).editMetadata().withDeletionTimestamp("2026-12-07T10:00:00Z").endMetadata()
                .editStatus().addNewCondition().withType("TerminationTarget").withStatus("True").withReason("WorkloadEvictedDueToPreempted")
                .withMessage("Preempted to accommodate a workload (UID: 5f0c) due to prioritization in the ClusterQueue").endCondition().endStatus().build();
        assertThat(blame(List.of(stopped, running("job-1", "gpu-2", null)), nodes, null))
                .satisfies(b -> assertThat(b.cause() + " " + b.reason()).isEqualTo("PREEMPTION Preempted"));

        GangState gone = GangState.observe(2, "job", List.of(running("job-1", "gpu-2", null)), Set.of("job-0"));
        FailureBlame.Blame evicted = FailureBlame.evicted(gone.failure().orElseThrow(), "kueue evicted the gang: Preempted to accommodate a workload");
        assertThat(evicted.cause()).isEqualTo(FailureBlame.Cause.PREEMPTION);
        assertThat(evicted.message()).isEqualTo("pod job-0 was deleted; kueue evicted the gang: Preempted to accommodate a workload");
    }

    @Test
    void aCompletionThePeerNeverAcknowledgedBlamesThePeerUnlessThePeerCrashed() throws IOException {
        // rank 0's log on kp-ddp-worker-0, its peer at 10.216.210.236 (NVIDIA/nccl#1405)
        String log = Files.readString(LOGS.resolve("corpus/nccl-ib-plugin-retry-exceeded-k8s-ddp-01.log"));
        Pod rankZero = exited(running("kp-ddp-worker-0", "gpu-1", "10.216.210.235"), 1);
        Pod peer = running("kp-ddp-worker-1", "gpu-2", "10.216.210.236");
        Function<String, Optional<Node>> nodes = nodes(healthy("gpu-1"), healthy("gpu-2"));

        FailureBlame.Blame blamed = blame(List.of(rankZero, peer), nodes, log);
        FailureBlame.Blame crashed = blame(List.of(rankZero, exited(peer, 1)), nodes, log);

        assertThat(blamed.cause() + " " + blamed.reason() + " " + blamed.node()).isEqualTo("NODE NcclCompletionError gpu-2");
        assertThat(blamed.message()).contains("rank 0's NCCL log blames node gpu-2: kp-ddp-worker-0:3468:3905 [4] ib_plugin.c:1615 NCCL WARN NET/IB :"
                + " Got completion from peer 10.216.210.236<54862> with status=12");
        assertThat(crashed.cause()).as("the peer's trainer exited: the network only carried the news").isEqualTo(FailureBlame.Cause.JOB);
    }

    @Test
    void anOlderNcclNamesThePeerByHostNameAndCutLinesBlameNobody() throws IOException {
        // Lightning-AI/lit-llama#380: the port-error host is cut to "...-48" in the post; node51 names its peer node48
        String log = Files.readString(LOGS.resolve("nccl-async-port-error-slurm-01.log"));
        Pod rankZero = exited(running("job-0", "node51", null), 1);

        FailureBlame.Blame blame = blame(List.of(rankZero, running("job-1", "node48", null)), nodes(healthy("node51"), healthy("node48")), log);

        assertThat(blame.cause() + " " + blame.reason() + " " + blame.node()).isEqualTo("NODE NcclCompletionError node48");
        assertThat(blame(List.of(rankZero, running("job-1", "node47", null)), nodes(), log).cause()).isEqualTo(FailureBlame.Cause.JOB);
    }

    @Test
    void aFatalAsyncEventBlamesTheHostThatLoggedItBehindALaunchersPrefix() throws IOException {
        // NVIDIA/nccl#230: mpirun's "2019-...Z: [1,12]<stdout>:" before the host
        String log = Files.readString(LOGS.resolve("nccl-async-local-catastrophic-01.log"));
        String host = "container-e275-1553839402050-12124-01-000057";
        Pod rankZero = exited(running("job-0", host, null), 1);

        FailureBlame.Blame blame = blame(List.of(rankZero, running("job-1", "gpu-2", null)), nodes(healthy(host), healthy("gpu-2")), log);

        assertThat(blame.cause() + " " + blame.reason() + " " + blame.node()).isEqualTo("NODE NcclDeviceError " + host);
    }

    @Test
    void aMembersNodeTurningBadWhileTheGangRunsIsNamedWithItsCondition() {
        Node flapping = new NodeBuilder(healthy("gpu-2")).editStatus().addNewCondition().withType("RdmaLinkFlapping").withStatus("True")
                .withReason("LinkDowned").withMessage("mlx5_1 port 1: link_downed +3 in 10 min").endCondition().endStatus().build();
        List<Pod> gang = List.of(running("job-0", "gpu-1", null), running("job-1", "gpu-2", null), new PodBuilder(running("job-2", "gpu-3", null))
                .editStatus().withPhase("Succeeded").endStatus().build());

        Optional<FailureBlame.Blame> blame = FailureBlame.whileRunning(gang, nodes(healthy("gpu-1"), flapping), java.time.Instant.parse("2026-11-30T12:00:00Z"));

        assertThat(blame).hasValueSatisfying(b -> {
            assertThat(b.cause() + " " + b.reason() + " " + b.node() + " " + b.pod()).isEqualTo("NODE RdmaLinkFlapping gpu-2 job-1");
            assertThat(b.message()).isEqualTo("node gpu-2 RdmaLinkFlapping: LinkDowned: mlx5_1 port 1: link_downed +3 in 10 min under pod job-1");
        });
    }
}
