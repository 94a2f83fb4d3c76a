package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.api.model.Pod;
import io.railyard.api.TrainingJob;
import io.railyard.operator.model.HangWatch;
import io.railyard.operator.model.StallVerdict;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** The nccl-watch sidecar's latest verdict, read at most once per its poll interval (one small log request). */
final class StallWatch {
    /** When each job's nccl-watch log was last read. */
    private final Map<String, Instant> readAt = new ConcurrentHashMap<>();

    Optional<StallVerdict> read(TrainingJob job, RankZeroLog logs, List<Pod> pods, Instant now) {
        if (!HangWatch.enabled(job.getSpec())) {
            return Optional.empty();
        }
        Instant last = readAt.get(key(job));
        if (last != null && now.isBefore(last.plusSeconds(HangWatch.intervalSeconds(job.getSpec())))) {
            return Optional.empty();
        }
        readAt.put(key(job), now);
        return logs.watch(job.getMetadata().getNamespace(), job.getMetadata().getName() + "-0").flatMap(log -> StallVerdict.of(log, pods));
    }

    /** When the verdict was last read; null when never. */
    Instant lastRead(TrainingJob job) {
        return readAt.get(key(job));
    }

    void forget(TrainingJob job) {
        readAt.remove(key(job));
    }

    private static String key(TrainingJob job) {
        return job.getMetadata().getNamespace() + "/" + job.getMetadata().getName();
    }
}
