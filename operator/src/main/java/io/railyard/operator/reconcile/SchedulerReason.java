package io.railyard.operator.reconcile;

import io.fabric8.volcano.api.model.scheduling.v1beta1.PodGroup;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.railyard.api.TrainingJob;
import java.util.Collection;
import java.util.Optional;

/**
 * Why the gang scheduler leaves a gang waiting, in its own words: Volcano writes it into the PodGroup's
 * {@code Unschedulable} condition ("4/4 tasks in gang unschedulable: ..."), which the operator's cache holds.
 */
final class SchedulerReason {
    private SchedulerReason() {}

    /** Volcano's reason for the job's PodGroup, if it gives one; empty where PodGroups are not served or all is placed. */
    static Optional<String> of(Context<TrainingJob> context, TrainingJob job) {
        if (context.eventSourceRetriever().getEventSourcesFor(PodGroup.class).isEmpty()) {
            return Optional.empty();
        }
        return of(context.getSecondaryResources(PodGroup.class), job.getMetadata().getName());
    }

    static Optional<String> of(Collection<PodGroup> groups, String job) {
        return groups.stream().filter(group -> group.getMetadata().getName().equals(job))
                .filter(group -> group.getStatus() != null && group.getStatus().getConditions() != null)
                .flatMap(group -> group.getStatus().getConditions().stream())
                .filter(condition -> "Unschedulable".equals(condition.getType()) && "True".equals(condition.getStatus())
                        && condition.getMessage() != null && !condition.getMessage().isBlank())
                .reduce((first, second) -> second) // the latest the scheduler wrote
                .map(condition -> "volcano: " + condition.getMessage());
    }
}
