package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.api.model.Pod;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import io.railyard.operator.model.SparePods;
import java.util.Set;
import java.util.stream.Collectors;

/** Which run of a gang a pod belongs to, and the job as its next run's pods are built: the nodes excluded so far. */
final class GangRuns {
    private GangRuns() {}

    /** The nodes excluded now, by name. */
    static Set<String> excludedNodes(TrainingJobStatus status) {
        return status.excludedNodes == null ? Set.of() : status.excludedNodes.stream().map(e -> e.node).collect(Collectors.toSet());
    }

    /** The job as its next pods are built: with the nodes excluded now. */
    static TrainingJob planned(TrainingJob job, TrainingJobStatus status) {
        TrainingJob planned = new TrainingJob();
        planned.setMetadata(job.getMetadata());
        planned.setSpec(job.getSpec());
        planned.setStatus(status);
        return planned;
    }

    /** Whether a pod belongs to the gang's current run; pods from before runs were counted belong to the first. */
    static boolean ofRun(Pod pod, String run) {
        if (SparePods.isSpare(pod)) {
            return false;
        }
        String attempt = pod.getMetadata().getLabels() == null ? null : pod.getMetadata().getLabels().get(Names.ATTEMPT_LABEL);
        return attempt == null ? run.equals("0") : attempt.equals(run);
    }
}
