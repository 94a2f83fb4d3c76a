package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A reconcile's end: the status patched when it changed, its phase change logged with the resource it is about. */
final class StatusPatch {
    private static final Logger LOG = LoggerFactory.getLogger(TrainingJobReconciler.class);

    private StatusPatch() {}

    /** Patches a fresh object holding only name, namespace and status, and only when the status changed. */
    static UpdateControl<TrainingJob> of(TrainingJob job, TrainingJobStatus before, TrainingJobStatus after) {
        boolean changed = !Serialization.asJson(before).equals(Serialization.asJson(after));
        if (changed) {
            log(job, before, after);
        }
        if (!changed) {
            return UpdateControl.noUpdate();
        }
        return UpdateControl.patchStatus(fresh(job, after));
    }

    /** A job holding only its name, namespace and this status: what a server-side apply of the status sends. */
    static TrainingJob fresh(TrainingJob job, TrainingJobStatus status) {
        TrainingJob fresh = new TrainingJob();
        fresh.setMetadata(new ObjectMetaBuilder().withName(job.getMetadata().getName()).withNamespace(job.getMetadata().getNamespace()).build());
        fresh.setStatus(status);
        return fresh;
    }

    static void log(TrainingJob job, TrainingJobStatus before, TrainingJobStatus after) {
        if (!Objects.equals(before.phase, after.phase) || !Objects.equals(before.restarts, after.restarts)) {
            LOG.info("TrainingJob({}/{}) {} -> {}: {}", job.getMetadata().getNamespace(), job.getMetadata().getName(), before.phase,
                    after.phase, JobEvents.latest(after));
        }
    }
}
