package io.railyard.diagnose.channel;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * What a channel's server refused, by reason ({@code seal}, {@code rank}, {@code slow-or-long}, {@code busy}, ...):
 * counted for its metrics, and said in the log at most once a minute, so that a flood of strangers cannot flood the log.
 */
public final class ChannelRejections {
    private static final long LOG_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final String who;
    private final Consumer<String> log;
    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
    private final Map<String, Long> logged = new ConcurrentHashMap<>();
    private volatile long nextLog = System.nanoTime();

    public ChannelRejections(String who, Consumer<String> log) {
        this.who = who;
        this.log = log;
    }

    public void count(String reason) {
        counts.computeIfAbsent(reason, r -> new AtomicLong()).incrementAndGet();
        long now = System.nanoTime();
        if (now - nextLog >= 0) {
            nextLog = now + LOG_EVERY_NANOS;
            flush();
        }
    }

    /** Says what was refused since it last said it, if anything. */
    public synchronized void flush() {
        Map<String, Long> since = new TreeMap<>();
        counts.forEach((reason, count) -> {
            long added = count.get() - logged.getOrDefault(reason, 0L);
            if (added > 0) {
                since.put(reason, added);
                logged.put(reason, count.get());
            }
        });
        if (!since.isEmpty()) {
            log.accept(who + ": refused connections on the job's channel, by reason: " + since
                    + " (without the job's key, of another attempt, or holding the server; at most one such line a minute)");
        }
    }

    /** The counts so far, by reason. */
    public Map<String, Long> counts() {
        Map<String, Long> snapshot = new TreeMap<>();
        counts.forEach((reason, count) -> snapshot.put(reason, count.get()));
        return snapshot;
    }
}
