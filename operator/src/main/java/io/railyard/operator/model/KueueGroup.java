package io.railyard.operator.model;

import io.railyard.api.TrainingJob;

/**
 * The Kueue pod group of a job's run, which is also the name of the Workload Kueue makes of it: each run is a group of
 * its own (queued and admitted afresh), since Kueue replaces a failed member only by a pod of another name.
 */
public final class KueueGroup {
    public static final String LABEL = "kueue.x-k8s.io/pod-group-name";

    private KueueGroup() {}

    /** The group of the job's current run: the job's name and its restarts so far. */
    public static String name(TrainingJob job) {
        return job.getMetadata().getName() + "-" + PodModel.attempt(job);
    }
}
