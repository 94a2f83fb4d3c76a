package io.railyard.agent.podresources;

import io.railyard.agent.AgentConfig;
import io.railyard.agent.ResourceConfig;
import io.railyard.agent.dra.DraDevice;
import io.railyard.agent.podresources.v1.ClaimResource;
import io.railyard.agent.podresources.v1.ContainerDevices;
import io.railyard.agent.podresources.v1.ContainerResources;
import io.railyard.agent.podresources.v1.DynamicResource;
import io.railyard.agent.podresources.v1.ListPodResourcesResponse;
import io.railyard.agent.podresources.v1.PodResources;
import io.railyard.node.NodeInventory;
import io.railyard.node.Port;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which containers hold which of this node's ports, from the kubelet's listing. A device plugin device id is the
 * port's id ({@code mlx5_0:1}), with {@code #slot} in shared mode; a DRA device is known by its name in the driver's
 * pool, and its resource is the driver. Devices of other resources and drivers (GPUs, another RDMA plugin) are left out.
 *
 * @param resources the device plugin resources this agent serves
 * @param draDriver the DRA driver's name, or empty when the agent is not one
 * @param ports each port by its id
 * @param draPorts each port by its DRA device name
 */
public record PortHolders(Set<String> resources, String draDriver, Map<String, Port> ports, Map<String, Port> draPorts) {

    /** The node's ports under the names the agent gave them: as device plugin devices, and as DRA devices when it is a driver. */
    public static PortHolders forNode(NodeInventory node, AgentConfig config, String draDriver) {
        Map<String, Port> ports = new HashMap<>();
        node.hcas().forEach(hca -> hca.ports().forEach(port -> ports.put(port.id(), port)));
        Map<String, Port> draPorts = new HashMap<>();
        if (!draDriver.isEmpty()) {
            DraDevice.forNode(node, config).forEach(device -> draPorts.put(device.name(), device.device().port()));
        }
        return new PortHolders(config.resources().stream().map(ResourceConfig::name).collect(Collectors.toSet()), draDriver, ports, draPorts);
    }

    public List<HeldPort> of(ListPodResourcesResponse listing) {
        Set<HeldPort> held = new LinkedHashSet<>(); // a container that asks twice for a shared port holds it once
        for (PodResources pod : listing.getPodResourcesList()) {
            for (ContainerResources container : pod.getContainersList()) {
                for (ContainerDevices devices : container.getDevicesList()) {
                    if (!resources.contains(devices.getResourceName())) {
                        continue;
                    }
                    for (String id : devices.getDeviceIdsList()) {
                        int slot = id.indexOf('#');
                        add(held, pod, container, devices.getResourceName(), ports.get(slot < 0 ? id : id.substring(0, slot)));
                    }
                }
                for (DynamicResource claim : container.getDynamicResourcesList()) {
                    for (ClaimResource device : claim.getClaimResourcesList()) {
                        if (!draDriver.isEmpty() && device.getDriverName().equals(draDriver)) {
                            add(held, pod, container, draDriver, draPorts.get(device.getDeviceName()));
                        }
                    }
                }
            }
        }
        return new ArrayList<>(held);
    }

    private static void add(Set<HeldPort> held, PodResources pod, ContainerResources container, String resource, Port port) {
        if (port != null) { // a port that left the node since Allocate has no series to join to
            held.add(new HeldPort(pod.getNamespace(), pod.getName(), container.getName(), resource, port.hca(), port.number()));
        }
    }
}
