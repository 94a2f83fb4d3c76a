package io.railyard.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.volcano.api.model.scheduling.v1beta1.PodGroup;
import io.fabric8.volcano.api.model.scheduling.v1beta1.PodGroupBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The schedulers' own words for a waiting gang: Volcano's, as v1.14 writes them into the PodGroup (seen on the real scheduler
 * in VolcanoIT), and Kueue's, as v0.19 writes them into the Workload (KueueIT).
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

    private static PodGroup group(String name, String type, String status, String message) {
        return new PodGroupBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewStatus().withPhase("Pending").addNewCondition().withType(type).withStatus(status).withReason("NotEnoughResources")
                .withMessage(message).endCondition().endStatus().build();
    }
}
