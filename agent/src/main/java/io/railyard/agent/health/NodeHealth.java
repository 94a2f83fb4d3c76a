package io.railyard.agent.health;

import io.railyard.agent.health.NodeCondition.Type;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The node's RDMA health as a state machine over port samples and the time they were taken: which of the four
 * conditions hold, and when each changed. A condition turns True as soon as its problem is seen and False only after the
 * problem has been gone for {@code stickySeconds}, so that a flapping port does not flap the condition. Pure: no clock of
 * its own, no I/O.
 */
public final class NodeHealth {
    private static final Duration ERROR_WINDOW = Duration.ofHours(1);

    private final NodeHealthConfig config;
    private final Duration sticky;
    private final Duration flapWindow;
    private final Map<Type, Held> held = new EnumMap<>(Type.class);
    /** The conditions as last built; rebuilt only when one changed (a poll of a healthy node changes none). */
    private List<NodeCondition> conditions;
    private final Map<String, PortHistory> ports = new TreeMap<>();
    /** Every port seen since the agent started, in the order first seen. */
    private final Set<String> seen = new LinkedHashSet<>();

    public NodeHealth(NodeHealthConfig config, Instant start) {
        this.config = config;
        this.sticky = Duration.ofSeconds(config.stickySeconds());
        this.flapWindow = Duration.ofSeconds(config.flapping().windowSeconds());
        for (Type type : Type.values()) {
            held.put(type, new Held(start));
        }
    }

    /** Takes one poll's samples (the ports present now) and returns the conditions that changed status, in type order. */
    public List<NodeCondition> observe(Instant now, List<PortSample> samples) {
        Set<String> present = new HashSet<>();
        samples.forEach(sample -> present.add(sample.port()));
        List<String> down = new ArrayList<>();
        List<String> flapping = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        for (PortSample sample : samples) {
            seen.add(sample.port());
            PortHistory history = ports.computeIfAbsent(sample.port(), ignored -> new PortHistory());
            history.take(now, sample, flapWindow);
            if (!sample.up()) {
                down.add(sample.spoken() + ": " + sample.state() + " since " + history.downSince);
            }
            history.flapping(now, config).ifPresent(text -> flapping.add(sample.spoken() + ": " + text));
            if (sample.linkDowned() != null || !sample.errors().isEmpty()) {
                history.findErrors(config); // the counters change only on the polls that read them
            }
            history.errorFindings.forEach(text -> errors.add(sample.spoken() + ": " + text));
        }
        List<String> missing = new ArrayList<>();
        for (String port : seen) {
            if (!present.contains(port)) {
                PortHistory history = ports.get(port);
                if (history.goneSince == null) {
                    history.goneSince = now;
                }
                missing.add(port.replace(":", " port ") + ": gone since " + history.goneSince);
            } else {
                ports.get(port).goneSince = null;
            }
        }
        if (present.size() < config.expectedPorts()) {
            missing.add(present.size() + " of the " + config.expectedPorts() + " expected ports present");
        }
        List<NodeCondition> changed = new ArrayList<>();
        step(Type.RdmaPortDown, down, now, changed);
        step(Type.RdmaLinkFlapping, flapping, now, changed);
        step(Type.RdmaPortErrors, errors, now, changed);
        step(Type.RdmaDeviceMissing, missing, now, changed);
        return changed;
    }

    /**
     * Whether every condition is False: then a poll whose samples are those of the last poll changes nothing (no
     * condition is waiting out its sticky window) and need not be observed.
     */
    public boolean allClear() {
        for (Held state : held.values()) {
            if (state.status) {
                return false;
            }
        }
        return true;
    }

    /** The four conditions as they stand, in type order. */
    public List<NodeCondition> conditions() {
        if (conditions == null) {
            conditions = held.entrySet().stream().map(e -> e.getValue().condition(e.getKey())).toList();
        }
        return conditions;
    }

    private void step(Type type, List<String> problems, Instant now, List<NodeCondition> changed) {
        Held state = held.get(type);
        if (!problems.isEmpty()) {
            String message = String.join("; ", problems);
            if (!message.equals(state.message)) {
                state.message = message;
                conditions = null;
            }
            state.lastSeen = now;
            if (!state.status) {
                state.status = true;
                state.since = now;
                conditions = null;
                changed.add(state.condition(type));
            }
        } else if (state.status && !now.isBefore(state.lastSeen.plus(sticky))) {
            state.status = false;
            state.since = now;
            state.message = "clear since " + state.lastSeen;
            conditions = null;
            changed.add(state.condition(type));
        } else if (state.status && !state.clearing) {
            state.message = state.message + " (clear since " + state.lastSeen + ", reported for " + config.stickySeconds() + " s after)";
            conditions = null;
        }
        state.clearing = state.status && problems.isEmpty();
    }

    /** One condition's state: its status, since when, the last time its problem was seen, and the words for it. */
    private static final class Held {
        boolean status;
        Instant since;
        Instant lastSeen;
        String message = "";
        /** True while the problem is gone but the condition still holds for the sticky window. */
        boolean clearing;

        Held(Instant start) {
            since = start;
            lastSeen = start;
        }

        NodeCondition condition(Type type) {
            return new NodeCondition(type, status, status ? type.problem : type.clear, message, since);
        }
    }

    /** What one port did: when it went down, its recoveries, and its counters over their windows. */
    private static final class PortHistory {
        Boolean up;
        Instant downSince;
        Instant goneSince;
        final Deque<Instant> recoveries = new ArrayDeque<>();
        final Deque<Reading> linkDowned = new ArrayDeque<>();
        final Map<String, Deque<Reading>> errors = new TreeMap<>();
        /** The counters that rose past their limits, as of the last poll that read them. */
        List<String> errorFindings = List.of();

        void take(Instant now, PortSample sample, Duration window) {
            if (!sample.up() && (up == null || up)) {
                downSince = now;
            }
            if (sample.up() && Boolean.FALSE.equals(up)) {
                recoveries.addLast(now);
            }
            up = sample.up();
            while (!recoveries.isEmpty() && recoveries.peekFirst().isBefore(now.minus(window))) {
                recoveries.removeFirst();
            }
            if (sample.linkDowned() != null) {
                record(linkDowned, now, sample.linkDowned(), window);
            }
            sample.errors().forEach((counter, value) -> record(errors.computeIfAbsent(counter, c -> new ArrayDeque<>()), now, value, ERROR_WINDOW));
        }

        Optional<String> flapping(Instant now, NodeHealthConfig config) {
            int limit = config.flapping().transitions();
            long downed = rise(linkDowned);
            if (recoveries.size() >= limit) {
                return Optional.of("down and up " + recoveries.size() + " times in " + config.flapping().windowSeconds() + " s");
            }
            if (downed >= limit) {
                return Optional.of("link_downed +" + downed + " in " + config.flapping().windowSeconds() + " s");
            }
            return Optional.empty();
        }

        void findErrors(NodeHealthConfig config) {
            List<String> found = new ArrayList<>();
            errors.forEach((counter, readings) -> {
                long rise = rise(readings);
                long limit = config.errors().perHour().get(counter);
                if (rise > limit) {
                    found.add(counter + " +" + rise + " within the last hour (limit " + limit + "/h)");
                }
            });
            errorFindings = found.isEmpty() ? List.of() : found;
        }

        /** Keeps the readings of the window; a counter that went back (reset, driver reload) starts its window again. */
        private static void record(Deque<Reading> readings, Instant now, long value, Duration window) {
            if (!readings.isEmpty() && value < readings.peekLast().value()) {
                readings.clear();
            }
            readings.addLast(new Reading(now, value));
            while (readings.size() > 1 && readings.peekFirst().at().isBefore(now.minus(window))) {
                readings.removeFirst();
            }
        }

        private static long rise(Deque<Reading> readings) {
            return readings.isEmpty() ? 0 : readings.peekLast().value() - readings.peekFirst().value();
        }
    }

    private record Reading(Instant at, long value) {}
}
