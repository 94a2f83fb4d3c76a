package io.railyard.agent.health;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.agent.PortHealth;
import io.railyard.node.Port;
import io.railyard.node.Sysfs;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's node health loop: every poll the advertised ports' state (as the device plugin read it), every
 * {@link #PRESENCE_EVERY} which ports are gone, every {@code countersSeconds} their counters; the state machine, and
 * the Node brought up to date.
 */
public final class NodeHealthMonitor implements AutoCloseable {
    /** A gone port is noticed within ten seconds: its directory is looked for that often (a stat a port). */
    static final Duration PRESENCE_EVERY = Duration.ofSeconds(10);
    static final Duration FIRST_RETRY = Duration.ofSeconds(2);
    static final Duration LAST_RETRY = Duration.ofMinutes(1);
    private static final Logger LOG = LoggerFactory.getLogger(NodeHealthMonitor.class);

    private final PortSampler sampler;
    private final Supplier<Map<String, PortHealth>> devicePlugin;
    private final NodeHealth health;
    private final NodeConditionWriter writer;
    private final Clock clock;
    /** Its own poll loop, only without a device plugin whose poll it can join. */
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("railyard-node-health").daemon().factory());
    /**
     * The API writes, on a thread of their own so that a slow API server never holds up the poll they are handed from
     * (the device plugin's, whose health the kubelet waits for); it wakes only when there is something to write.
     */
    private final ExecutorService writes = Executors.newSingleThreadExecutor(Thread.ofPlatform().name("railyard-node-health-write").daemon().factory());
    private final java.util.Queue<NodeCondition> transitions = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private volatile boolean writing;
    private volatile boolean lastWriteFailed;
    private volatile Instant retryAt = Instant.EPOCH;
    private Duration retryIn = Duration.ZERO;
    private List<NodeCondition> handedOver;
    private Instant handedOverAt = Instant.EPOCH;
    private final Duration countersEvery;
    private Instant presenceRead = Instant.EPOCH;
    private Instant countersRead = Instant.EPOCH;
    private volatile List<NodeCondition> conditions;
    private Map<String, PortHealth> lastKnown;
    private volatile Instant quietUntil = Instant.EPOCH;

    /** @param devicePlugin the ports' health as the device plugin's last poll read it (empty map without one): read once, used twice */
    public NodeHealthMonitor(Path root, List<Port> ports, Supplier<Map<String, PortHealth>> devicePlugin, NodeHealthConfig config,
            KubernetesClient client, String nodeName, Clock clock) {
        this.sampler = new PortSampler(Sysfs.keepingFilesOpen(root), ports);
        this.devicePlugin = devicePlugin;
        this.clock = clock;
        this.health = new NodeHealth(config, clock.instant());
        this.countersEvery = Duration.ofSeconds(config.countersSeconds());
        this.writer = new NodeConditionWriter(client, nodeName, config.taint());
        this.conditions = health.conditions();
    }

    /** Polls on its own thread: for an agent without a device plugin. */
    public void start(Duration poll) {
        loop.scheduleWithFixedDelay(this::step, 0, poll.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * One poll on the caller's thread, for the device plugin's poll to run after its own: a second thread woken every
     * poll costs more CPU than node health's work (bench/node-health.sh).
     */
    public void step() {
        try {
            poll();
        } catch (RuntimeException e) { // a poll that fails must not end the loop
            LOG.warn("node health poll failed: {}", e.toString());
        }
    }

    /** One poll: sample, judge, and hand a write over when one is due. */
    public void poll() {
        Instant now = clock.instant();
        Map<String, PortHealth> known = devicePlugin.get();
        if (known == lastKnown && now.isBefore(quietUntil)) {
            return; // most polls: a healthy node whose ports the device plugin saw as they were, and nothing due
        }
        Map<String, PortHealth> before = lastKnown;
        lastKnown = known;
        boolean presence = !now.isBefore(presenceRead.plus(PRESENCE_EVERY));
        boolean counters = !now.isBefore(countersRead.plus(countersEvery));
        if (presence) {
            presenceRead = now;
        }
        if (counters) {
            countersRead = now;
        }
        boolean quiet = known == before && !presence && !counters && health.allClear() && sampler.allKnown(known);
        if (!quiet) {
            List<NodeCondition> changed = health.observe(now, sampler.sample(known, presence, counters));
            changed.forEach(c -> LOG.info("{} {}: {}", c.type(), c.status() ? "True" : "False", c.message()));
            conditions = health.conditions();
            transitions.addAll(changed);
        }
        boolean due = !transitions.isEmpty() || !conditions.equals(handedOver) || lastWriteFailed
                || !now.isBefore(handedOverAt.plus(NodeConditionWriter.HEARTBEAT));
        boolean handing = due && !writing && !now.isBefore(retryAt);
        // Until the next presence, counter or heartbeat time, a poll that sees the same map has nothing to do, while every
        // condition is False and nothing waits to be written (a failed write ends the quiet at once: wrote)
        quietUntil = (!due || handing) && health.allClear() && sampler.allKnown(known)
                ? earliest(presenceRead.plus(PRESENCE_EVERY), countersRead.plus(countersEvery),
                        (handing ? now : handedOverAt).plus(NodeConditionWriter.HEARTBEAT))
                : Instant.EPOCH;
        if (handing) {
            writing = true;
            handedOver = conditions;
            handedOverAt = now;
            List<NodeCondition> current = conditions;
            writes.execute(() -> {
                try {
                    List<NodeCondition> drained = new java.util.ArrayList<>();
                    for (NodeCondition transition; (transition = transitions.poll()) != null; ) {
                        drained.add(transition);
                    }
                    wrote(now, writer.write(now, current, drained));
                } catch (RuntimeException e) {
                    wrote(now, false);
                    LOG.warn("node health write failed: {}", e.toString());
                } finally {
                    writing = false;
                }
            });
        }
    }

    private static Instant earliest(Instant a, Instant b, Instant c) {
        Instant first = a.isBefore(b) ? a : b;
        return first.isBefore(c) ? first : c;
    }

    /** After a failed write the next waits, twice as long each time up to a minute, so an API server that is down is not asked every poll. */
    private void wrote(Instant at, boolean ok) {
        lastWriteFailed = !ok;
        if (!ok) {
            quietUntil = Instant.EPOCH;
        }
        retryIn = ok ? Duration.ZERO : retryIn.isZero() ? FIRST_RETRY : min(retryIn.multipliedBy(2), LAST_RETRY);
        retryAt = at.plus(retryIn);
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** The conditions as they stand, for {@code /metrics}. */
    public List<NodeCondition> conditions() {
        return conditions;
    }

    @Override
    public void close() {
        loop.shutdownNow();
        writes.shutdownNow();
    }
}
