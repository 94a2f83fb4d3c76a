package io.railyard.agent;

import io.railyard.node.Attr;
import io.railyard.node.CharDevice;
import io.railyard.node.LinkState;
import io.railyard.node.Port;
import io.railyard.node.Sysfs;
import java.util.Optional;

/**
 * Whether a port can carry RDMA now: ACTIVE, LinkUp, and its HCA's uverbs node present. Read fresh on each call.
 *
 * @param linkState as ibstat shows it, {@code ACTIVE/LinkUp} or {@code DOWN/Polling}
 */
public record PortHealth(boolean healthy, String reason, String linkState) {
    public static final String LINK_UP = "ACTIVE/LinkUp";
    static final PortHealth OK = new PortHealth(true, "", LINK_UP);

    public PortHealth(boolean healthy, String reason) {
        this(healthy, reason, healthy ? LINK_UP : "unknown");
    }

    public static PortHealth of(Sysfs sysfs, PluginDevice device) {
        Port port = device.port();
        Attr<LinkState> state = sysfs.read(port.dir().resolve("state"), LinkState::parse);
        Attr<LinkState> physical = sysfs.read(port.dir().resolve("phys_state"), LinkState::parse);
        boolean active = state.is(s -> s.id() == LinkState.ACTIVE);
        boolean linkUp = physical.is(s -> s.id() == LinkState.LINK_UP);
        if (!active || !linkUp) {
            String link = state.map(LinkState::name).orElse("unknown") + "/" + physical.map(LinkState::name).orElse("unknown");
            return new PortHealth(false, "port " + port.id() + " is " + link, link);
        }
        Optional<CharDevice> uverbs = device.hca().uverbs();
        if (uverbs.isEmpty()) {
            return new PortHealth(false, device.hca().name() + " has no uverbs device", LINK_UP);
        }
        if (!sysfs.exists(sysfs.resolve("dev/infiniband").resolve(uverbs.get().name()))) {
            return new PortHealth(false, uverbs.get().hostPath() + " of " + device.hca().name() + " is missing", LINK_UP);
        }
        return OK;
    }
}
