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
    private final IntervalReads reads = new IntervalReads();
    /** When this operator first saw each run's network verified: no data counts {@code windows} intervals after. */
    private final Map<String, Instant> verifiedAt = new ConcurrentHashMap<>();

    Optional<SpeedVerdict> read(TrainingJob job, RankZeroLog logs, TrainingJobStatus status, Instant now) {
        TrainingJobSpec spec = job.getSpec();
        if (!InspectorSidecar.enabled(spec) || !reads.due(job, now, InspectorSidecar.intervalSeconds(spec))) {
            return Optional.empty();
        }
        String key = IntervalReads.key(job);
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
        return reads.lastRead(job);
    }

    void forget(TrainingJob job) {
        reads.forget(job);
        verifiedAt.keySet().removeIf(run -> run.startsWith(IntervalReads.key(job) + "#"));
    }
}
