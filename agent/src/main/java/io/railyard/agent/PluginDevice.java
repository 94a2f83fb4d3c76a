package io.railyard.agent;

import io.railyard.node.Hca;
import io.railyard.node.NodeInventory;
import io.railyard.node.Port;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** One device the plugin advertises: a port, or in shared mode one slot of a port. */
public record PluginDevice(String id, Hca hca, Port port) {

    /** The NUMA node of the port's HCA, or -1. */
    public int numaNode() {
        return hca.numaNodeOrNone();
    }

    /**
     * The devices a resource advertises on this node. Ports already taken by an earlier resource are left out, so
     * that no port is advertised twice; the ids of the ports this resource takes are added to {@code taken}.
     */
    public static List<PluginDevice> forResource(NodeInventory node, ResourceConfig resource, Set<String> taken) {
        List<PluginDevice> devices = new ArrayList<>();
        for (Hca hca : node.hcas()) {
            for (Port port : hca.ports()) {
                if (taken.contains(port.id()) || !resource.selector().matches(hca, port)) {
                    continue;
                }
                taken.add(port.id());
                if (resource.mode() == ResourceConfig.Mode.EXCLUSIVE) {
                    devices.add(new PluginDevice(port.id(), hca, port));
                } else {
                    for (int slot = 0; slot < resource.slotsPerPort(); slot++) {
                        devices.add(new PluginDevice(port.id() + "#" + slot, hca, port));
                    }
                }
            }
        }
        return devices;
    }
}
