package io.railyard.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.volcano.api.model.scheduling.v1beta1.PodGroup;
import io.fabric8.volcano.api.model.scheduling.v1beta1.PodGroupBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The schedulers' own words for a waiting gang: Volcano's, as v1.14 writes them into the PodGroup (seen on the real scheduler
 * in VolcanoIT), Kueue's, as v0.19 writes them into the Workload (KueueIT), and kube-scheduler's, as 1.37 writes them
 * into the pods of a gang of its own (WorkloadGangIT).
 */
class SchedulerReasonTest {
    private static final String KUEUE_WAITING = "couldn't assign flavors to pod set main: topology \"e2e-hosts\" doesn't allow to fit any of 4 pod(s)";
    private static final String WAITING = "4/4 tasks in gang unschedulable: pod group is not ready, 4 Pending, 4 minAvailable; Pending: 4 Unschedulable";

    @Test
    void theLatestUnschedulableConditionOfTheJobsGroupIsTheReason() {
        PodGroup group = group("whole", "Unschedulable", "True", "0/0 tasks in gang unschedulable: pod group is not ready, 4 minAvailable");
        group.getStatus().getConditions().add(group("whole", "Unschedulable", "True", WAITING).getStatus().getConditions().getFirst());

        assertThat(SchedulerReason.of(List.of(group("other", "Unschedulable", "True", "not this one"), group), "whole"))
                .contains("volcano: " + WAITING);
    }

    @Test
    void aScheduledGroupOrOneWithoutConditionsSaysNothing() {
        assertThat(SchedulerReason.of(List.of(group("whole", "Scheduled", "True", "pod group is ready")), "whole")).isEmpty();
        assertThat(SchedulerReason.of(List.of(new PodGroupBuilder().withNewMetadata().withName("whole").endMetadata().build()), "whole")).isEmpty();
        assertThat(SchedulerReason.of(List.of(), "whole")).isEmpty();
    }

    @Test
    void kueuesWordsAreTheMessageOfTheWorkloadsConditionOfThatStatus() {
        GenericKubernetesResource workload = new GenericKubernetesResourceBuilder().withApiVersion("kueue.x-k8s.io/v1beta2").withKind("Workload")
                .withNewMetadata().withName("whole").endMetadata()
                .addToAdditionalProperties("status", Map.of("conditions", List.of(
                        Map.of("type", "QuotaReserved", "status", "False", "reason", "Pending", "message", KUEUE_WAITING),
                        Map.of("type", "Evicted", "status", "False", "reason", "QuotaReserved", "message", "Previously: Preempted"))))
                .build();

        assertThat(SchedulerReason.condition(workload, "QuotaReserved", "False")).contains(KUEUE_WAITING);
        assertThat(SchedulerReason.condition(workload, "Evicted", "True")).as("an eviction Kueue has since undone").isEmpty();
        assertThat(SchedulerReason.condition(new GenericKubernetesResourceBuilder().withNewMetadata().withName("whole").endMetadata().build(),
                "QuotaReserved", "False")).isEmpty();
    }

    @Test
    void kubeSchedulersWordsAreTheGroupsVerdictBeforeAPodsOwn() {
        // what kube-scheduler v1.37.2 wrote into a 5-pod gang's pods with room for 3 under any one leaf (WorkloadGangIT)
        String group = "pod group is unschedulable, pod group is unschedulable, 0/2 placements are available, first placement status:"
                + " minCount (5) cannot be satisfied: 3 scheduled, 1 remaining, pod group preemption: No preemption victims found for"
                + " incoming preemptor";
        List<Pod> pods = List.of(pending("wide-3", "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."), pending("wide-0", group),
                new PodBuilder().withNewMetadata().withName("wide-1").endMetadata().withNewSpec().withNodeName("kg-topo-05").endSpec().build());

        assertThat(SchedulerReason.unschedulable(pods)).contains("kube-scheduler: " + group);
        assertThat(SchedulerReason.unschedulable(pods.subList(0, 1))).contains("kube-scheduler: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu.");
        assertThat(SchedulerReason.unschedulable(pods.subList(2, 3))).as("placed").isEmpty();
    }

    private static Pod pending(String name, String message) {
        return new PodBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec().endSpec().withNewStatus().withPhase("Pending")
                .addNewCondition().withType("PodScheduled").withStatus("False").withReason("Unschedulable").withMessage(message).endCondition()
                .endStatus().build();
    }

    private static PodGroup group(String name, String type, String status, String message) {
        return new PodGroupBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewStatus().withPhase("Pending").addNewCondition().withType(type).withStatus(status).withReason("NotEnoughResources")
                .withMessage(message).endCondition().endStatus().build();
    }
}
