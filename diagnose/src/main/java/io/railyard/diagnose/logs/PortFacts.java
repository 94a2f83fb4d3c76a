package io.railyard.diagnose.logs;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One port as a node tool (ibstat, ibv_devinfo, ibportstate, ibqueryerrors, perfquery) printed it; null where it did not
 * say. The counters keep the tool's order.
 */
public record PortFacts(String port, String state, String physicalState, String linkLayer, String rate, Integer lid,
        Integer smLid, Integer activeMtu, Map<String, Long> errors) {

    public PortFacts {
        errors = Collections.unmodifiableMap(new LinkedHashMap<>(errors));
    }
}
