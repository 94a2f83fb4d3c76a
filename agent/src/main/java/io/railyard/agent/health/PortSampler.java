package io.railyard.agent.health;

import io.railyard.node.Attr;
import io.railyard.node.Counters;
import io.railyard.node.LinkState;
import io.railyard.node.Port;
import io.railyard.node.Sysfs;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the advertised ports' state (every poll) and counters (when asked) from sysfs, keeping the files open between
 * polls as the metrics collector does; a port whose directory is gone is left out. One thread.
 */
final class PortSampler {
    private final Sysfs sysfs;
    private final List<Port> ports;

    PortSampler(Sysfs sysfs, List<Port> ports) {
        this.sysfs = sysfs;
        this.ports = List.copyOf(ports);
    }

    List<PortSample> sample(boolean counters) {
        List<PortSample> samples = new ArrayList<>(ports.size());
        for (Port port : ports) {
            if (!sysfs.exists(port.dir())) {
                continue;
            }
            sysfs.renewIfReplaced(port.dir());
            Attr<LinkState> state = sysfs.read(port.dir().resolve("state"), LinkState::parse);
            Attr<LinkState> physical = sysfs.read(port.dir().resolve("phys_state"), LinkState::parse);
            boolean up = state.is(s -> s.id() == LinkState.ACTIVE) && physical.is(s -> s.id() == LinkState.LINK_UP);
            String text = state.map(LinkState::name).orElse("unknown") + "/" + physical.map(LinkState::name).orElse("unknown");
            Long linkDowned = null;
            Map<String, Long> errors = new HashMap<>();
            if (counters) {
                Map<String, Long> values = Counters.read(sysfs, port.dir().resolve("counters")).values();
                linkDowned = values.get("link_downed");
                NodeHealthConfig.ERROR_COUNTERS.keySet().forEach(counter -> {
                    if (values.containsKey(counter)) {
                        errors.put(counter, values.get(counter));
                    }
                });
            }
            samples.add(new PortSample(port.id(), up, text, linkDowned, errors));
        }
        sysfs.endRound();
        return samples;
    }
}
