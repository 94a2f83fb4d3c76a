package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.railyard.api.SchedulingSpec;
import io.railyard.api.TrainingJob;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;

/** Everything a TrainingJob needs, computed without a cluster: what the operator creates and `railyard render` prints. */
public final class TrainingJobModel {
    private TrainingJobModel() {}

    /** The desired objects and the warnings a user should read; call {@link JobValidation#errors} first. */
    public record Desired(List<HasMetadata> objects, List<String> warnings) {}

    /** Everything, the gang's pods last: what `railyard render` prints. */
    public static Desired desired(TrainingJob job, OperatorDefaults defaults) {
        Desired owned = owned(job, defaults);
        List<HasMetadata> objects = new ArrayList<>(owned.objects());
        objects.addAll(pods(job, defaults, index -> true));
        return new Desired(objects, owned.warnings());
    }

    /**
     * The gang's pods of the indices {@code wanted} accepts, in index order (pod i is named JOB-i). A reconcile builds only
     * the pods missing from its cache, and render a part at a time: building a 12,500-node gang is seconds of one core.
     */
    public static List<Pod> pods(TrainingJob job, OperatorDefaults defaults, IntPredicate wanted) {
        JobSettings settings = JobSettings.of(job, defaults);
        // each pod is built on its own; the order stays the index's
        return IntStream.range(0, job.getSpec().nodes).filter(wanted).parallel()
                .mapToObj(index -> PodModel.desired(job, settings, index, defaults.railyardImage())).toList();
    }

    /** The job's objects but its pods (its Service, PodGroup or Workload, claim template), and the warnings a user should read. */
    public static Desired owned(TrainingJob job, OperatorDefaults defaults) {
        JobSettings settings = JobSettings.of(job, defaults);
        List<HasMetadata> objects = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        objects.add(ServiceModel.desired(job, settings));
        ChannelPolicy.desired(job, settings, defaults).ifPresent(objects::add);
        if (settings.scheduler() == SchedulingSpec.Scheduler.VOLCANO) {
            objects.add(PodGroupModel.desired(job, settings, defaults.railyardImage()));
        } else if (settings.scheduler() == SchedulingSpec.Scheduler.KUBERNETES) {
            objects.addAll(WorkloadGangModel.desired(job, settings));
            WorkloadGangModel.unserved(job.getSpec(), defaults.workloadGangs()).ifPresent(problem -> warnings.add(problem + "; the operator refuses the job"));
        } else if (settings.scheduler() == SchedulingSpec.Scheduler.DEFAULT && job.getSpec().nodes > 1) {
            warnings.add("spec.scheduling.scheduler is default: the pods are not scheduled as a gang and can deadlock "
                    + "(two jobs that each got part of their nodes wait for each other forever); use volcano, kueue or kubernetes");
        }
        if (settings.dra()) {
            objects.add(ClaimTemplateModel.desired(job, settings));
        }
        if (job.getSpec().preflight != null && job.getSpec().nodes == 1) {
            warnings.add("spec.preflight does nothing with one node: there is no link between nodes to measure");
        }
        if (!settings.dra() && settings.rdmaDevicesDefaulted() && job.getSpec().gpusPerNode > 1) {
            warnings.add("spec.rdma.devicesPerNode is not set: each pod gets 1 RDMA device for its "
                    + job.getSpec().gpusPerNode + " GPUs, so NCCL uses one rail; set devicesPerNode to the node's RDMA ports ("
                    + job.getSpec().gpusPerNode + " on a node with a NIC per GPU)");
        }
        warnings.addAll(InspectorSidecar.warnings(settings));
        RestartStrategies.warning(job.getSpec(), defaults.inPlaceRestart()).ifPresent(warnings::add);
        SparePods.warning(job, defaults).ifPresent(warnings::add);
        HostPaths.disallowed(job, defaults.allowedHostPaths()).forEach(problem -> warnings.add(problem + "; the operator refuses the job"));
        return new Desired(objects, warnings);
    }
}
