package io.railyard.fabric;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One port's line in ibqueryerrors: the counters it reported beyond ibqueryerrors' own thresholds.
 *
 * @param guid the switch's node GUID, or the HCA's port GUID
 * @param counters counter name to value, in the order printed
 */
public record PortErrors(Guid guid, String description, int port, Map<String, Long> counters, String line) {
    public PortErrors {
        counters = Collections.unmodifiableMap(new LinkedHashMap<>(counters));
    }
}
