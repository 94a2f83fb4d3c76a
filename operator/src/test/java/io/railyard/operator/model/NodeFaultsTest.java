package io.railyard.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.railyard.api.Names;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** What a node shows that makes it a gang's problem, on nodes as the API server and the agent write them. */
class NodeFaultsTest {
    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

    private static NodeBuilder node(String ready, Instant since) {
        return new NodeBuilder().withNewMetadata().withName("gpu-1").endMetadata().withNewSpec().endSpec().withNewStatus()
                .addNewCondition().withType("Ready").withStatus(ready).withReason(ready.equals("True") ? "KubeletReady" : "NodeStatusUnknown")
                .withMessage(ready.equals("True") ? "kubelet is posting ready status" : "Kubelet stopped posting node status.")
                .withLastTransitionTime(since.toString()).endCondition()
                .addNewCondition().withType("RdmaPortErrors").withStatus("False").withReason("ErrorsWithinLimits").endCondition()
                .endStatus();
    }

    private static Pod pod() {
        return new PodBuilder().withNewMetadata().withName("job-0").endMetadata().withNewSpec().withNodeName("gpu-1").endSpec()
                .withNewStatus().withPhase("Running").endStatus().build();
    }

    private static Pod tolerating(String key, Long seconds) {
        return new PodBuilder(pod()).editSpec().addNewToleration().withKey(key).withOperator("Exists").withEffect("NoExecute")
                .withTolerationSeconds(seconds).endToleration().endSpec().build();
    }

    @Test
    void aHealthyNodeShowsNothingAndConcernsNobody() {
        Node healthy = node("True", NOW.minusSeconds(3600)).build();

        assertThat(NodeFaults.of(healthy)).isEmpty();
        assertThat(NodeFaults.whileRunning(healthy, pod(), NOW)).isEmpty();
        assertThat(NodeFaults.concerning(healthy)).isFalse();
    }

    @Test
    void theAgentsConditionsTaintsAndThePreflightMarkAreFaults() {
        Node portDown = node("True", NOW).editStatus().addNewCondition().withType("RdmaPortDown").withStatus("True")
                .withReason("PortNotActive").withMessage("mlx5_3 port 1: DOWN/Polling since 2026-11-30T11:59:58Z").endCondition().endStatus().build();
        Node tainted = node("True", NOW).editSpec().addNewTaint().withKey(Names.RDMA_UNHEALTHY_TAINT).withValue("RdmaPortDown")
                .withEffect("NoSchedule").endTaint().endSpec().build();
        Node labelled = node("True", NOW).editMetadata().addToLabels(Names.PREFLIGHT_LABEL, "failed").endMetadata().build();

        assertThat(NodeFaults.of(portDown)).hasValueSatisfying(fault -> {
            assertThat(fault.reason()).isEqualTo("RdmaPortDown");
            assertThat(fault.message()).isEqualTo("node gpu-1 RdmaPortDown: PortNotActive: mlx5_3 port 1: DOWN/Polling since 2026-11-30T11:59:58Z");
        });
        assertThat(NodeFaults.whileRunning(portDown, pod(), NOW)).map(NodeFaults.Fault::reason).hasValue("RdmaPortDown");
        assertThat(NodeFaults.of(tainted)).map(NodeFaults.Fault::reason).hasValue(NodeFaults.RDMA_TAINTED);
        assertThat(NodeFaults.of(labelled)).map(NodeFaults.Fault::reason).hasValue(NodeFaults.PREFLIGHT_FAILED);
        assertThat(NodeFaults.whileRunning(labelled, pod(), NOW)).as("another job's preflight verdict does not stop a running gang").isEmpty();
    }

    @Test
    void aNotReadyNodeRestartsTheGangOnlyOnceThePodNoLongerToleratesIt() {
        Node notReady = node("False", NOW.minusSeconds(120)).build();
        Node unreachable = node("Unknown", NOW.minusSeconds(120)).build();

        assertThat(NodeFaults.of(notReady)).map(NodeFaults.Fault::reason).hasValue(NodeFaults.NOT_READY);
        assertThat(NodeFaults.whileRunning(notReady, pod(), NOW)).as("the admission default, 300 s").isEmpty();
        assertThat(NodeFaults.whileRunning(node("False", NOW.minusSeconds(301)).build(), pod(), NOW)).map(NodeFaults.Fault::reason)
                .hasValue(NodeFaults.NOT_READY);
        assertThat(NodeFaults.whileRunning(notReady, tolerating("node.kubernetes.io/not-ready", 60L), NOW)).isPresent();
        assertThat(NodeFaults.whileRunning(unreachable, tolerating("node.kubernetes.io/not-ready", 60L), NOW))
                .as("Unknown is unreachable, which the pod tolerates for the default").isEmpty();
        assertThat(NodeFaults.whileRunning(unreachable, tolerating("node.kubernetes.io/unreachable", 60L), NOW)).isPresent();
    }

    @Test
    void aNoExecuteTaintRestartsTheGangUnlessThePodToleratesIt() {
        Node drained = node("True", NOW).editSpec().addNewTaint().withKey("maintenance.example.com/drain").withEffect("NoExecute")
                .withTimeAdded(NOW.minusSeconds(120).toString()).endTaint().endSpec().build();

        assertThat(NodeFaults.concerning(drained)).isTrue();
        assertThat(NodeFaults.whileRunning(drained, pod(), NOW)).map(NodeFaults.Fault::reason).hasValue(NodeFaults.NO_EXECUTE);
        assertThat(NodeFaults.whileRunning(drained, tolerating("maintenance.example.com/drain", null), NOW)).isEmpty();
        assertThat(NodeFaults.whileRunning(drained, tolerating("maintenance.example.com/drain", 600L), NOW)).isEmpty();
        assertThat(NodeFaults.whileRunning(drained, tolerating("maintenance.example.com/drain", 60L), NOW)).isPresent();
    }

    @Test
    void theTimeAToleranceRunsOutIsWhenWhileRunningWillNameTheNode() {
        Node notReady = node("False", NOW.minusSeconds(120)).build();
        Node drained = node("True", NOW).editSpec().addNewTaint().withKey("maintenance.example.com/drain").withEffect("NoExecute")
                .withTimeAdded(NOW.minusSeconds(120).toString()).endTaint().endSpec().build();

        Instant due = NodeFaults.dueWhileRunning(notReady, pod()).orElseThrow();
        assertThat(due).isAfter(NOW.plusSeconds(179)).isBefore(NOW.plusSeconds(181));
        assertThat(NodeFaults.whileRunning(notReady, pod(), due.minusMillis(2))).isEmpty();
        assertThat(NodeFaults.whileRunning(notReady, pod(), due)).isPresent();
        assertThat(NodeFaults.dueWhileRunning(notReady, tolerating("node.kubernetes.io/not-ready", null))).as("tolerated for ever").isEmpty();
        assertThat(NodeFaults.dueWhileRunning(drained, tolerating("maintenance.example.com/drain", 600L))).hasValue(NOW.plusSeconds(480));
        assertThat(NodeFaults.dueWhileRunning(node("True", NOW).build(), pod())).isEmpty();
    }
}
