package io.railyard.operator.reconcile;

import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobSpec;
import io.railyard.api.TrainingJobStatus;
import io.railyard.diagnose.inspector.JobSpeedLine;
import io.railyard.operator.model.InspectorSidecar;
import io.railyard.operator.model.SpeedVerdict;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The first pod's nccl-speed line, read at most once per interval (one small log request) while a job with NCCL
 * Inspector runs, and decided into the Degraded condition.
 */
final class SpeedWatch {
    /** When each job's line was last read. */
    private final Map<String, Instant> readAt = new ConcurrentHashMap<>();
    /** When this operator first saw each run's network verified: no data counts {@code windows} intervals after. */
    private final Map<String, Instant> verifiedAt = new ConcurrentHashMap<>();

    Optional<SpeedVerdict> read(TrainingJob job, RankZeroLog logs, TrainingJobStatus status, Instant now) {
        TrainingJobSpec spec = job.getSpec();
        String key = key(job);
        if (!InspectorSidecar.enabled(spec)) {
            return Optional.empty();
        }
        Instant last = readAt.get(key);
        if (last != null && now.isBefore(last.plusSeconds(InspectorSidecar.intervalSeconds(spec)))) {
            return Optional.empty();
        }
        readAt.put(key, now);
        String run = key + "#" + (status.restarts == null ? 0 : status.restarts);
        verifiedAt.keySet().removeIf(other -> other.startsWith(key + "#") && !other.equals(run));
        if (status.rdma != null) {
            verifiedAt.putIfAbsent(run, now);
        }
        Instant verified = verifiedAt.get(run);
        boolean noDataCounts = verified != null
                && !now.isBefore(verified.plusSeconds((long) InspectorSidecar.windows(spec) * InspectorSidecar.intervalSeconds(spec)));
        return logs.speed(job.getMetadata().getNamespace(), job.getMetadata().getName() + "-0")
                .flatMap(JobSpeedLine::last)
                .flatMap(line -> SpeedVerdict.of(line, spec, status, noDataCounts));
    }

    /** When the line was last read; null when never. */
    Instant lastRead(TrainingJob job) {
        return readAt.get(key(job));
    }

    void forget(TrainingJob job) {
        readAt.remove(key(job));
        verifiedAt.keySet().removeIf(run -> run.startsWith(key(job) + "#"));
    }

    private static String key(TrainingJob job) {
        return job.getMetadata().getNamespace() + "/" + job.getMetadata().getName();
    }
}
