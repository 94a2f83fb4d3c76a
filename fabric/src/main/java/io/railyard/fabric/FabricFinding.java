package io.railyard.fabric;

import java.util.List;

/**
 * Something wrong in the fabric, with the tool line that shows it and what to do, and where it is: the ports it is
 * about (both ends of a cable, one switch port, or a switch as its port 0) or, for a host, the host's name.
 */
public record FabricFinding(String id, Severity severity, String summary, String evidence, String remedy, List<Cable.End> at,
        String host) {
    public enum Severity {
        error, warning;
    }

    public FabricFinding {
        at = List.copyOf(at);
    }
}
