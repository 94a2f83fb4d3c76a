package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.railyard.api.SchedulingSpec;
import io.railyard.api.TrainingJob;
import java.util.ArrayList;
import java.util.List;

/** Everything a TrainingJob needs, computed without a cluster: what the operator creates and `railyard render` prints. */
public final class TrainingJobModel {
    /** The image of Railyard's own init container (await-rank). */
    public static final String DEFAULT_RAILYARD_IMAGE = "ghcr.io/railyard/railyard:0.1.0";

    private TrainingJobModel() {}

    /** The desired objects and the warnings a user should read; call {@link JobValidation#errors} first. */
    public record Desired(List<HasMetadata> objects, List<String> warnings) {}

    public static Desired desired(TrainingJob job, String railyardImage) {
        JobSettings settings = JobSettings.of(job);
        List<HasMetadata> objects = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        objects.add(ServiceModel.desired(job, settings));
        if (settings.scheduler() == SchedulingSpec.Scheduler.VOLCANO) {
            objects.add(PodGroupModel.desired(job, settings));
        } else if (settings.scheduler() == SchedulingSpec.Scheduler.DEFAULT && job.getSpec().nodes > 1) {
            warnings.add("spec.scheduling.scheduler is default: the pods are not scheduled as a gang and can deadlock "
                    + "(two jobs that each got part of their nodes wait for each other forever); use volcano or kueue");
        }
        if (settings.dra()) {
            objects.add(ClaimTemplateModel.desired(job, settings));
        }
        if (job.getSpec().preflight != null && job.getSpec().nodes == 1) {
            warnings.add("spec.preflight does nothing with one node: there is no link between nodes to measure");
        }
        for (int index = 0; index < job.getSpec().nodes; index++) {
            objects.add(PodModel.desired(job, settings, index, railyardImage));
        }
        return new Desired(objects, warnings);
    }
}
