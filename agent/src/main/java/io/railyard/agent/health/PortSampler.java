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
 * a port it does not serve), on some polls which are gone, and on fewer {@code link_downed} and the link-integrity
 * counters.
 * Files are kept open between polls, as the metrics collector keeps them. One thread.
 */
final class PortSampler {
    private final Sysfs sysfs;
    private final List<Port> ports;
    /** Each port's id ({@code mlx5_3:1}), built once. */
    private final Map<Port, String> ids = new HashMap<>();
    /** The ports whose directory was there when last looked for. */
    private List<Port> present;
    /** The map {@link #allKnown} last looked at, and its answer. */
    private Map<String, PortHealth> coveredBy;
    private boolean covered;

    PortSampler(Sysfs sysfs, List<Port> ports) {
        this.sysfs = sysfs;
        this.ports = List.copyOf(ports);
        this.present = this.ports;
        this.ports.forEach(port -> ids.put(port, port.id()));
    }

    /**
     * @param known each port's health from the device plugin's last poll, by port id (empty without a device plugin)
     * @param presence also look for ports gone: a directory's existence changes seldom
     * @param counters also read the counters: they are judged over minutes, and reading them on every poll would cost
     *     more than the rest of it
     */
    List<PortSample> sample(Map<String, PortHealth> known, boolean presence, boolean counters) {
        if (presence) {
            present = ports.stream().filter(port -> sysfs.exists(port.dir())).toList();
            coveredBy = null;
        }
        List<PortSample> samples = new ArrayList<>(present.size());
        for (Port port : present) {
            String id = ids.get(port);
            PortHealth health = known.get(id);
            String state = health != null ? health.linkState() : read(port);
            Long linkDowned = null;
            Map<String, Long> errors = Map.of();
            if (counters) {
                errors = new HashMap<>();
                sysfs.renewIfReplaced(port.dir());
                linkDowned = counter(port, "link_downed");
                for (String name : NodeHealthConfig.ERROR_COUNTERS.keySet()) {
                    Long value = counter(port, name);
                    if (value != null) {
                        errors.put(name, value);
                    }
                }
            }
            samples.add(new PortSample(id, PortHealth.LINK_UP.equals(state), state, linkDowned, errors));
        }
        if (counters) {
            sysfs.endRound();
        }
        return samples;
    }

    /** Whether the device plugin's map holds every present port, so that a poll reads none itself (worked out once a map). */
    boolean allKnown(Map<String, PortHealth> known) {
        if (known != coveredBy) {
            covered = present.stream().allMatch(port -> known.containsKey(ids.get(port)));
            coveredBy = known;
        }
        return covered;
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
