package io.railyard.agent.health;

import io.railyard.agent.PortHealth;
import io.railyard.node.Attr;
import io.railyard.node.LinkState;
import io.railyard.node.Port;
import io.railyard.node.Sysfs;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The advertised ports as one poll sees them: their state as the device plugin's poll just read it (read here only for
 * a port it does not serve), and on full rounds which are gone, {@code link_downed} and the link-integrity counters.
 * Files are kept open between polls, as the metrics collector keeps them. One thread.
 */
final class PortSampler {
    private final Sysfs sysfs;
    private final List<Port> ports;
    /** The ports whose directory was there at the last full round. */
    private List<Port> present;

    PortSampler(Sysfs sysfs, List<Port> ports) {
        this.sysfs = sysfs;
        this.ports = List.copyOf(ports);
        this.present = this.ports;
    }

    /**
     * @param known each port's health from the device plugin's last poll, by port id (empty without a device plugin)
     * @param full also look for ports gone and read the counters: a directory's existence and its counters change
     *     slowly, and checking them on every poll would cost more than the rest of it
     */
    List<PortSample> sample(Map<String, PortHealth> known, boolean full) {
        if (full) {
            present = ports.stream().filter(port -> sysfs.exists(port.dir())).toList();
        }
        List<PortSample> samples = new ArrayList<>(present.size());
        for (Port port : present) {
            PortHealth health = known.get(port.id());
            String state = health != null ? health.linkState() : read(port);
            Long linkDowned = null;
            Map<String, Long> errors = new HashMap<>();
            if (full) {
                sysfs.renewIfReplaced(port.dir());
                linkDowned = counter(port, "link_downed");
                for (String name : NodeHealthConfig.ERROR_COUNTERS.keySet()) {
                    Long value = counter(port, name);
                    if (value != null) {
                        errors.put(name, value);
                    }
                }
            }
            samples.add(new PortSample(port.id(), PortHealth.LINK_UP.equals(state), state, linkDowned, errors));
        }
        if (full) {
            sysfs.endRound();
        }
        return samples;
    }

    private String read(Port port) {
        Attr<LinkState> state = sysfs.read(port.dir().resolve("state"), LinkState::parse);
        Attr<LinkState> physical = sysfs.read(port.dir().resolve("phys_state"), LinkState::parse);
        return state.map(LinkState::name).orElse("unknown") + "/" + physical.map(LinkState::name).orElse("unknown");
    }

    private Long counter(Port port, String name) {
        return sysfs.read(port.dir().resolve("counters").resolve(name), text -> Long.parseLong(text.strip())).orElse(null);
    }
}
