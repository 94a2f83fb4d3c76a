package io.railyard.fabric;

import java.util.Map;
import java.util.Set;

/**
 * How many of each PMA error counter a port may have before it is a finding: the example values infiniband-diags ships in
 * {@code /etc/infiniband-diags/error_thresholds}. Link-integrity counters make an error; discards and waits, which
 * congestion also causes, a warning.
 */
public final class ErrorThresholds {
    private static final Map<String, Long> THRESHOLDS = Map.ofEntries(Map.entry("SymbolErrorCounter", 10L),
            Map.entry("LinkErrorRecoveryCounter", 10L), Map.entry("LinkDownedCounter", 10L), Map.entry("PortRcvErrors", 10L),
            Map.entry("PortRcvRemotePhysicalErrors", 100L), Map.entry("PortRcvSwitchRelayErrors", 100L),
            Map.entry("PortXmitDiscards", 100L), Map.entry("PortXmitConstraintErrors", 100L), Map.entry("PortRcvConstraintErrors", 100L),
            Map.entry("LocalLinkIntegrityErrors", 10L), Map.entry("ExcessiveBufferOverrunErrors", 10L), Map.entry("VL15Dropped", 100L),
            Map.entry("PortXmitWait", 1000L));
    private static final Set<String> LINK_INTEGRITY = Set.of("SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter",
            "PortRcvErrors", "PortRcvRemotePhysicalErrors", "LocalLinkIntegrityErrors", "ExcessiveBufferOverrunErrors");

    private ErrorThresholds() {}

    /** The threshold of a counter by its infiniband-diags name ({@code SymbolErrorCounter}); the agent judges growth per hour by it. */
    public static long threshold(String counter) {
        Long threshold = THRESHOLDS.get(counter);
        if (threshold == null) {
            throw new IllegalArgumentException("no threshold for " + counter);
        }
        return threshold;
    }

    /** Counters without a threshold here (the detail counters of {@code --details}) are not judged on their own. */
    static boolean beyond(String counter, long value) {
        Long threshold = THRESHOLDS.get(counter);
        return threshold != null && value > threshold;
    }

    static boolean linkIntegrity(String counter) {
        return LINK_INTEGRITY.contains(counter);
    }
}
