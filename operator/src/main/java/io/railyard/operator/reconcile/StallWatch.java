package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.api.model.Pod;
import io.railyard.api.TrainingJob;
import io.railyard.operator.model.HangWatch;
import io.railyard.operator.model.StallVerdict;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The nccl-watch sidecar's latest verdict, read at most once per its poll interval (one small log request). */
final class StallWatch {
    private final IntervalReads reads = new IntervalReads();

    Optional<StallVerdict> read(TrainingJob job, RankZeroLog logs, List<Pod> pods, Instant now) {
        if (!HangWatch.enabled(job.getSpec()) || !reads.due(job, now, HangWatch.intervalSeconds(job.getSpec()))) {
            return Optional.empty();
        }
        return logs.watch(job.getMetadata().getNamespace(), job.getMetadata().getName() + "-0").flatMap(log -> StallVerdict.of(log, pods));
    }

    /** When the verdict was last read; null when never. */
    Instant lastRead(TrainingJob job) {
        return reads.lastRead(job);
    }

    void forget(TrainingJob job) {
        reads.forget(job);
    }
}
