package io.railyard.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.volcano.api.model.scheduling.v1beta1.PodGroup;
import io.fabric8.volcano.api.model.scheduling.v1beta1.PodGroupBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Volcano's own words for a waiting gang, as v1.14 writes them into the PodGroup (seen on the real scheduler in VolcanoIT). */
class SchedulerReasonTest {
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

    private static PodGroup group(String name, String type, String status, String message) {
        return new PodGroupBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewStatus().withPhase("Pending").addNewCondition().withType(type).withStatus(status).withReason("NotEnoughResources")
                .withMessage(message).endCondition().endStatus().build();
    }
}
