package io.railyard.operator.reconcile;

import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.ResourceEventAware;
import io.railyard.api.TrainingJob;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Wakes a job's reconcile when the next of its deadlines is due (a toleration running out, an exclusion ending, the
 * admission back-off, a time to live), on the operator's clock rather than the wall clock, so that time that passes
 * with no event in the cluster still acts. One due time per job: each reconcile sets the next. Checked every second.
 */
final class DueTimes extends AbstractEventSource<Void, TrainingJob> implements ResourceEventAware<TrainingJob> {
    private final Clock clock;
    private final Map<ResourceID, Instant> due = new ConcurrentHashMap<>();
    private ScheduledExecutorService ticker;

    DueTimes(Clock clock) {
        super(Void.class, "due-times");
        this.clock = clock;
    }

    /** The job's next deadline, replacing the one before; none: nothing of the job waits on time. */
    void set(ResourceID job, Instant next) {
        if (next == null) {
            due.remove(job);
        } else {
            due.put(job, next);
        }
    }

    @Override
    public void onResourceDeleted(TrainingJob job) {
        due.remove(ResourceID.fromResource(job));
    }

    @Override
    public Set<Void> getSecondaryResources(TrainingJob job) {
        return Set.of();
    }

    @Override
    public void start() {
        ticker = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("railyard-due-times").daemon().factory());
        ticker.scheduleWithFixedDelay(this::fireDue, 1, 1, TimeUnit.SECONDS);
        super.start();
    }

    @Override
    public void stop() {
        if (ticker != null) {
            ticker.shutdownNow();
        }
        super.stop();
    }

    private void fireDue() {
        Instant now = clock.instant();
        due.forEach((job, at) -> {
            if (!now.isBefore(at) && due.remove(job, at)) {
                getEventHandler().handleEvent(new Event(job));
            }
        });
    }
}
