package io.railyard.operator.model;

import io.railyard.api.TopologyRequest;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobSpec;
import java.util.Map;

/**
 * The Kueue pod group of a job's run, which is also the name of the Workload Kueue makes of it: each run is a group of
 * its own (queued and admitted afresh), since Kueue replaces a failed member only by a pod of another name.
 */
public final class KueueGroup {
    public static final String LABEL = "kueue.x-k8s.io/pod-group-name";
    static final String POD_SET_GROUP_ANNOTATION = "kueue.x-k8s.io/podset-group-name";

    private KueueGroup() {}

    /** The group of the job's current run: the job's name and its restarts so far. */
    public static String name(TrainingJob job) {
        return job.getMetadata().getName() + "-" + PodModel.attempt(job);
    }

    /**
     * The members' topology request to Kueue's topology-aware scheduling: {@code podset-required-topology} (the gang waits
     * for one domain of the level with room for all of it) or {@code podset-preferred-topology}; none when the job asks none.
     * Kueue makes a pod set of each distinct pod (rank 0, which alone carries the hang watch, and the rest) and fits each
     * alone unless they share a {@code podset-group-name}: the gang's, so that it is fitted whole.
     */
    static Map<String, String> topology(TrainingJobSpec spec) {
        TopologyRequest request = spec.scheduling == null ? null : spec.scheduling.topology;
        if (request == null || request.level == null) {
            return Map.of();
        }
        String kind = request.mode == TopologyRequest.Mode.PREFERRED ? "preferred" : "required";
        return Map.of("kueue.x-k8s.io/podset-" + kind + "-topology", request.level, POD_SET_GROUP_ANNOTATION, "ranks");
    }
}
