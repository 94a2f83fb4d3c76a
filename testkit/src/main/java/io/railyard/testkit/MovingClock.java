package io.railyard.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock a test or a bench moves by hand: waits of minutes or hours pass at once, and nothing reads the wall clock. */
public final class MovingClock extends Clock {
    private volatile Instant now;

    public MovingClock(Instant start) {
        now = start;
    }

    public void advance(Duration by) {
        now = now.plus(by);
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
