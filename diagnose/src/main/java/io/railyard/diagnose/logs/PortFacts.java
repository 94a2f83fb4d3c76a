package io.railyard.diagnose.logs;

import java.util.Map;

/** One port as a node tool (ibstat, ibv_devinfo, ibqueryerrors, perfquery) printed it; null where it did not say. */
public record PortFacts(String port, String state, String physicalState, String linkLayer, String rate, Integer lid,
        Integer smLid, Integer activeMtu, Map<String, Long> errors) {

    public PortFacts {
        errors = Map.copyOf(errors);
    }
}
