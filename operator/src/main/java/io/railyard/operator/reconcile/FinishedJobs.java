package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A job that Succeeded or Failed: its pods and spares let go of, and the job itself deleted once its time to live ran out. */
final class FinishedJobs {
    private static final Logger LOG = LoggerFactory.getLogger(TrainingJobReconciler.class);

    private FinishedJobs() {}

    static UpdateControl<TrainingJob> tidy(TrainingJob job, KubernetesClient client, TrainingJobStatus status, List<Pod> pods, List<Pod> spares,
            Instant now) {
        if ("Failed".equals(status.phase) && pods.stream().anyMatch(pod -> pod.getMetadata().getDeletionTimestamp() == null)) {
            GangPods.deletePods(client, job); // the failure was written before its pods were deleted: an operator stopped in between
        }
        spares.stream().filter(spare -> spare.getMetadata().getDeletionTimestamp() == null) // a finished gang's spares hold GPUs for nothing
                .forEach(spare -> client.pods().inNamespace(job.getMetadata().getNamespace()).withName(spare.getMetadata().getName()).delete());
        Long ttl = job.getSpec().runPolicy == null ? null : job.getSpec().runPolicy.ttlSecondsAfterFinished;
        if (ttl != null && status.completionTime != null && now.isAfter(Instant.parse(status.completionTime).plusSeconds(ttl))) {
            LOG.info("TrainingJob({}/{}) finished {} s ago: deleting it", job.getMetadata().getNamespace(), job.getMetadata().getName(), ttl);
            client.resource(job).delete();
        }
        return UpdateControl.noUpdate();
    }
}
