package io.railyard.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The pure parts of the operator's loop: ranks in topology order, the gang's state, and conditions. */
class GangTest {

    private static Pod pod(String name, String node, String phase) {
        return new PodBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withNodeName(node).endSpec()
                .withNewStatus().withPhase(phase).endStatus().build();
    }

    private static Pod failed(String name, int exitCode) {
        return new PodBuilder(pod(name, "n1", "Failed")).editStatus().addNewContainerStatus().withName("trainer")
                .withNewState().withNewTerminated().withExitCode(exitCode).withReason("Error").endTerminated().endState()
                .endContainerStatus().endStatus().build();
    }

    /** A two-pod gang's current run, with none of its pods deleted. */
    private static GangState observe(List<Pod> pods) {
        return GangState.observe(2, "job", pods, Set.of());
    }

    @Test
    void ranksFollowTheFabricThenTheNodeName() {
        List<Pod> pods = List.of(pod("job-0", "gpu-d", "Running"), pod("job-1", "gpu-a", "Running"),
                pod("job-2", "gpu-c", "Running"), pod("job-3", "gpu-b", "Running"));
        Map<String, Map<String, String>> labels = Map.of(
                "gpu-a", Map.of("spine", "s2", "leaf", "l3"),
                "gpu-b", Map.of("spine", "s1", "leaf", "l2"),
                "gpu-c", Map.of("spine", "s1", "leaf", "l1"),
                "gpu-d", Map.of("spine", "s1", "leaf", "l1"));

        List<RankOrder.Rank> ranks = RankOrder.of(pods, labels, List.of("spine", "leaf"));

        assertThat(ranks).extracting(RankOrder.Rank::node).containsExactly("gpu-c", "gpu-d", "gpu-b", "gpu-a");
        assertThat(ranks).extracting(RankOrder.Rank::pod).containsExactly("job-2", "job-0", "job-3", "job-1");
        assertThat(RankOrder.masterAddress(ranks, "job", "ns")).isEqualTo("job-2.job.ns.svc");
    }

    @Test
    void noRanksUntilEveryPodHasANode() {
        assertThat(RankOrder.of(List.of(pod("job-0", "n1", "Pending"), pod("job-1", null, "Pending")), Map.of(), List.of("rack")))
                .isEmpty();
    }

    @Test
    void unlabelledNodesSortLast() {
        List<RankOrder.Rank> ranks = RankOrder.of(List.of(pod("job-0", "a", "Running"), pod("job-1", "b", "Running")),
                Map.of("b", Map.of("rack", "r1")), List.of("rack"));

        assertThat(ranks).extracting(RankOrder.Rank::node).containsExactly("b", "a");
    }

    @Test
    void phasesOfTheGang() {
        assertThat(observe(List.of()).phase()).isEqualTo("Pending");
        assertThat(observe(List.of(pod("job-0", "n1", "Pending"), pod("job-1", null, "Pending"))).phase())
                .isEqualTo("Scheduling");
        assertThat(observe(List.of(pod("job-0", "n1", "Running"), pod("job-1", "n2", "Running"))).phase())
                .isEqualTo("Running");
        assertThat(observe(List.of(pod("job-0", "n1", "Succeeded"), pod("job-1", "n2", "Succeeded"))).phase())
                .isEqualTo("Succeeded");
    }

    @Test
    void failuresNameThePodContainerAndExitCode() {
        GangState failedPod = observe(List.of(pod("job-0", "n1", "Running"), failed("job-1", 137)));
        GangState deleted = GangState.observe(2, "job", List.of(pod("job-0", "n1", "Running")), Set.of("job-1"));
        GangState lost = observe(List.of(pod("job-0", "n1", "Running"), pod("job-1", "n2", "Unknown")));

        assertThat(failedPod.failure().map(GangState.Failure::message)).hasValue("pod job-1 container trainer exited with code 137 (Error)");
        assertThat(deleted.failure().map(GangState.Failure::message)).hasValue("pod job-1 was deleted");
        assertThat(lost.failure().map(GangState.Failure::message)).hasValue("pod job-1 lost contact with its node n2");
        assertThat(lost.failed()).extracting(p -> p.getMetadata().getName()).containsExactly("job-1");
        assertThat(observe(List.of(pod("job-0", null, "Pending"))).failure())
                .as("a pod not created yet, or whose event has not come").isEmpty();
        assertThat(observe(List.of(pod("job-0", "n1", "Running"), pod("job-1", "n2", "Running"))).failure()).isEmpty();
    }

    @Test
    void aPodBeingEvictedOrDeletedBreaksTheGangBeforeItIsGone() {
        Pod evicted = new PodBuilder(pod("job-1", "n2", "Running")).editStatus().addNewCondition().withType("DisruptionTarget")
                .withStatus("True").withReason("PreemptionByScheduler").withMessage("Kueue: preempted by a higher priority workload")
                .endCondition().endStatus().build();
        Pod deleting = new PodBuilder(pod("job-0", "n1", "Running")).editMetadata().withDeletionTimestamp("2026-11-30T01:00:00Z").endMetadata().build();

        assertThat(observe(List.of(pod("job-0", "n1", "Running"), evicted)).failure().map(GangState.Failure::message))
                .hasValue("pod job-1 is being evicted (PreemptionByScheduler: Kueue: preempted by a higher priority workload)");
        assertThat(observe(List.of(deleting, pod("job-1", "n2", "Running"))).failure().map(GangState.Failure::message))
                .hasValue("pod job-0 is being deleted");
    }

    @Test
    void conditionsMoveTheirTransitionTimeOnlyOnChange() {
        List<Condition> first = Conditions.set(null, "Running", true, "AllRanksRunning", "2 of 2", 1, "2026-11-30T01:00:00Z");
        List<Condition> same = Conditions.set(first, "Running", true, "AllRanksRunning", "2 of 2", 2, "2026-11-30T01:05:00Z");
        List<Condition> flipped = Conditions.set(same, "Running", false, "Restarting", "pod job-1 failed", 2, "2026-11-30T01:07:00Z");
        List<Condition> other = Conditions.set(flipped, "Scheduled", true, "AllPodsPlaced", "", 2, "2026-11-30T01:08:00Z");

        assertThat(same.getFirst().getLastTransitionTime()).isEqualTo("2026-11-30T01:00:00Z");
        assertThat(same.getFirst().getObservedGeneration()).isEqualTo(2);
        assertThat(flipped.getFirst().getLastTransitionTime()).isEqualTo("2026-11-30T01:07:00Z");
        assertThat(other).extracting(Condition::getType).containsExactly("Running", "Scheduled");
    }
}
