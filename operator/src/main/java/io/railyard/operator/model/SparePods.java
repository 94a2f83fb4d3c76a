package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A job's hot spares, computed without a cluster: how many it keeps, the pods, and the patch that promotes one into a
 * failed rank's place. Spares exist only where the gang restarts in place: a gang recreated whole has no use for them.
 */
public final class SparePods {
    private SparePods() {}

    /** The spares the job keeps on this cluster. */
    public static int desired(TrainingJob job, OperatorDefaults defaults) {
        Integer spares = job.getSpec().spareNodes;
        return spares == null || !RestartStrategies.inPlace(job.getSpec(), defaults.inPlaceRestart()) ? 0 : spares;
    }

    /** spareNodes asked of a gang that is recreated whole: said, and no spare made. */
    static Optional<String> warning(TrainingJob job, OperatorDefaults defaults) {
        Integer spares = job.getSpec().spareNodes;
        return spares != null && spares > 0 && desired(job, defaults) == 0
                ? Optional.of("spec.spareNodes is " + spares + " but the gang is recreated whole on a restart (restartStrategy Recreate, or a "
                        + "cluster that does not restart pods in place): no spare is kept")
                : Optional.empty();
    }

    public static boolean isSpare(Pod pod) {
        return pod.getMetadata().getLabels() != null && "true".equals(pod.getMetadata().getLabels().get(Names.SPARE_LABEL));
    }

    /** The spare pods to create, named {@code <job>-spare-N} with the lowest numbers no pod of the job holds. */
    public static List<Pod> missing(TrainingJob job, OperatorDefaults defaults, Set<String> taken, int count) {
        JobSettings settings = JobSettings.of(job, defaults);
        List<Pod> pods = new ArrayList<>();
        for (int n = 0; pods.size() < count; n++) {
            String name = settings.name() + "-spare-" + n;
            if (!taken.contains(name)) {
                pods.add(PodModel.spare(job, settings, name, defaults.railyardImage()));
            }
        }
        return pods;
    }

    /**
     * The merge patch that makes a spare the member at {@code index} of {@code attempt}: its index and attempt labels and,
     * unless the operator orders ranks by topology (then it writes them once the gang is placed), the rank and master
     * address its await-rank waits for.
     */
    public static String promotion(TrainingJob job, OperatorDefaults defaults, int index, int attempt) {
        JobSettings settings = JobSettings.of(job, defaults);
        Map<String, Object> labels = new LinkedHashMap<>();
        labels.put(Names.SPARE_LABEL, null);
        labels.put(Names.INDEX_LABEL, String.valueOf(index));
        labels.put(Names.ATTEMPT_LABEL, String.valueOf(attempt));
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("labels", labels);
        if (!settings.topologyOrder()) {
            labels.put(Names.RANK_LABEL, String.valueOf(index));
            Map<String, String> annotations = new LinkedHashMap<>();
            annotations.put(Names.NODE_RANK_ANNOTATION, String.valueOf(index));
            annotations.put(Names.MASTER_ADDR_ANNOTATION, settings.masterAddress());
            metadata.put("annotations", annotations);
        }
        return Serialization.asJson(Map.of("metadata", metadata));
    }
}
