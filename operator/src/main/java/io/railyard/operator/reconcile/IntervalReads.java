package io.railyard.operator.reconcile;

import io.railyard.api.TrainingJob;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** When each job's sidecar log was last read, so that it is read at most once per the sidecar's interval. */
final class IntervalReads {
    private final Map<String, Instant> readAt = new ConcurrentHashMap<>();

    /** Whether the job's log is due for a read at {@code now}; a due read is recorded as made. */
    boolean due(TrainingJob job, Instant now, int intervalSeconds) {
        Instant last = readAt.get(key(job));
        if (last != null && now.isBefore(last.plusSeconds(intervalSeconds))) {
            return false;
        }
        readAt.put(key(job), now);
        return true;
    }

    /** When the log was last read; null when never. */
    Instant lastRead(TrainingJob job) {
        return readAt.get(key(job));
    }

    void forget(TrainingJob job) {
        readAt.remove(key(job));
    }

    static String key(TrainingJob job) {
        return job.getMetadata().getNamespace() + "/" + job.getMetadata().getName();
    }
}
