package io.railyard.agent.health;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.railyard.fabric.ErrorThresholds;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code nodeHealth} section of the agent's configuration: whether the agent writes the Node's RDMA conditions, how
 * long a problem stays reported after it cleared, what counts as flapping and as too many errors, the ports the node
 * must have, and the optional taint.
 *
 * @param expectedPorts ports the node must have (0: those seen since the agent started)
 * @param countersSeconds how often link_downed and the link-integrity counters are read: they are judged over minutes and
 *     an hour, and reading them is most of what node health costs a poll (bench/node-health.sh)
 */
public record NodeHealthConfig(boolean enabled, int stickySeconds, Flapping flapping, Errors errors, int expectedPorts, Taint taint,
        int countersSeconds) {
    /** The link-integrity counters judged, by their sysfs file, and the infiniband-diags counter whose threshold they take. */
    static final Map<String, String> ERROR_COUNTERS = Map.of("symbol_error", "SymbolErrorCounter", "link_error_recovery",
            "LinkErrorRecoveryCounter", "local_link_integrity_errors", "LocalLinkIntegrityErrors", "excessive_buffer_overrun_errors",
            "ExcessiveBufferOverrunErrors", "port_rcv_errors", "PortRcvErrors");

    /** @param transitions down-and-up cycles (or link_downed increments) within the window that make a port flapping */
    public record Flapping(int transitions, int windowSeconds) {
        @JsonCreator
        public Flapping(@JsonProperty("transitions") Integer transitions, @JsonProperty("windowSeconds") Integer windowSeconds) {
            this(transitions == null ? 3 : transitions, windowSeconds == null ? 600 : windowSeconds);
        }

        public Flapping {
            positive("nodeHealth.flapping.transitions", transitions);
            positive("nodeHealth.flapping.windowSeconds", windowSeconds);
        }
    }

    /** @param perHour growth per hour of each counter (sysfs name) beyond which the port has errors */
    public record Errors(Map<String, Long> perHour) {
        @JsonCreator
        public Errors(@JsonProperty("perHour") Map<String, Long> perHour) {
            Map<String, Long> all = new LinkedHashMap<>();
            ERROR_COUNTERS.forEach((file, counter) -> all.put(file, ErrorThresholds.threshold(counter)));
            if (perHour != null) {
                perHour.forEach((file, limit) -> {
                    if (!ERROR_COUNTERS.containsKey(file)) {
                        throw new IllegalArgumentException("nodeHealth.errors.perHour: unknown counter '" + file + "' (known: "
                                + String.join(", ", ERROR_COUNTERS.keySet().stream().sorted().toList()) + ")");
                    }
                    if (limit == null || limit < 1) {
                        throw new IllegalArgumentException("nodeHealth.errors.perHour." + file + " must be at least 1");
                    }
                    all.put(file, limit);
                });
            }
            this.perHour = Map.copyOf(all);
        }
    }

    /** @param effect NoSchedule or NoExecute */
    public record Taint(boolean enabled, String effect) {
        @JsonCreator
        public Taint(@JsonProperty("enabled") Boolean enabled, @JsonProperty("effect") String effect) {
            this(Boolean.TRUE.equals(enabled), effect == null ? "NoSchedule" : effect);
        }

        public Taint {
            if (!effect.equals("NoSchedule") && !effect.equals("NoExecute")) {
                throw new IllegalArgumentException("nodeHealth.taint.effect is '" + effect + "': use NoSchedule or NoExecute");
            }
        }
    }

    @JsonCreator
    public NodeHealthConfig(@JsonProperty("enabled") Boolean enabled, @JsonProperty("stickySeconds") Integer stickySeconds,
            @JsonProperty("flapping") Flapping flapping, @JsonProperty("errors") Errors errors,
            @JsonProperty("expectedPorts") Integer expectedPorts, @JsonProperty("taint") Taint taint,
            @JsonProperty("countersSeconds") Integer countersSeconds) {
        this(enabled == null || enabled, stickySeconds == null ? 600 : stickySeconds, flapping == null ? new Flapping(null, null) : flapping,
                errors == null ? new Errors(null) : errors, expectedPorts == null ? 0 : expectedPorts, taint == null ? new Taint(null, null) : taint,
                countersSeconds == null ? 60 : countersSeconds);
    }

    public NodeHealthConfig {
        if (stickySeconds < 0) {
            throw new IllegalArgumentException("nodeHealth.stickySeconds must be at least 0");
        }
        if (expectedPorts < 0) {
            throw new IllegalArgumentException("nodeHealth.expectedPorts must be at least 0");
        }
        positive("nodeHealth.countersSeconds", countersSeconds);
    }

    /** Without a nodeHealth section: on, with the defaults above, no taint. */
    public static NodeHealthConfig defaults() {
        return new NodeHealthConfig(null, null, null, null, null, null, null);
    }

    private static void positive(String key, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(key + " must be at least 1");
        }
    }
}
