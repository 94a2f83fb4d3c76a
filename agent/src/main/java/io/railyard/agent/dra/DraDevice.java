package io.railyard.agent.dra;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.railyard.agent.AgentConfig;
import io.railyard.agent.PluginDevice;
import io.railyard.agent.PortHealth;
import io.railyard.agent.ResourceConfig;
import io.railyard.node.NodeInventory;
import io.railyard.node.PciDevice;
import io.railyard.node.Port;
import io.railyard.node.Rate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** One RDMA port as a DRA device: its name in the node's pool and the attributes a claim selects and aligns on. */
public record DraDevice(String name, PluginDevice device, ResourceConfig resource) {
    /** The DRA library's attribute for the PCIe root a device hangs from; NVIDIA's GPU driver sets it too. */
    public static final String PCIE_ROOT = "resource.kubernetes.io/pcieRoot";
    private static final Pattern SEMVER = Pattern.compile("\\d+\\.\\d+\\.\\d+");
    private static final int MAX_VALUE_LENGTH = 64;

    /** The ports the agent's resources select, each once, as devices named after HCA and port. */
    public static List<DraDevice> forNode(NodeInventory node, AgentConfig config) {
        Set<String> taken = new HashSet<>();
        List<DraDevice> devices = new ArrayList<>();
        for (ResourceConfig resource : config.resources()) {
            ResourceConfig claimed = exclusive(resource);
            for (PluginDevice device : PluginDevice.forResource(node, claimed, taken)) {
                devices.add(new DraDevice(nameOf(device.port()), device, claimed));
            }
        }
        return devices;
    }

    /** A DNS label: {@code mlx5_0} port 1 is {@code mlx5-0-port1}. */
    static String nameOf(Port port) {
        String hca = port.hca().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-+|-+$", "");
        String name = hca + "-port" + port.number();
        return name.length() <= 63 ? name : name.substring(name.length() - 63).replaceAll("^-+", "");
    }

    /** A claim takes a port whole (shared slots are the device plugin's idea, not DRA's), and never its umad. */
    private static ResourceConfig exclusive(ResourceConfig resource) {
        return new ResourceConfig(resource.name(), ResourceConfig.Mode.EXCLUSIVE, 1, resource.selector(), false, resource.pkey(),
                resource.serviceLevel(), resource.environment(), null, resource.adaptiveRouting());
    }

    /** The attributes of the device with its health now; names without a domain are in the driver's own. */
    public Map<String, DeviceAttribute> attributes(PortHealth health) {
        Port port = device.port();
        Map<String, DeviceAttribute> attributes = new LinkedHashMap<>();
        String root = device.hca().pci().map(PciDevice::hostBridge).orElse("");
        if (!root.isEmpty()) {
            attributes.put(PCIE_ROOT, string(root));
        }
        attributes.put("ibDevice", string(port.hca()));
        attributes.put("port", integer(port.number()));
        if (port.linkLayer().isKnown()) {
            attributes.put("linkLayer", string(port.linkLayer().orElseThrow().toString()));
        }
        double gbps = port.rate().map(Rate::gigabitsPerSecond).orElse(0d);
        if (gbps > 0) {
            attributes.put("rateGbps", integer(Math.round(gbps)));
        }
        attributes.put("numaNode", integer(device.numaNode()));
        if (port.netdev().isKnown()) {
            attributes.put("netdev", string(port.netdev().orElseThrow().name()));
        }
        port.ncclGidIndex().ifPresent(index -> attributes.put("gidIndex", integer(index)));
        String firmware = device.hca().firmware().orElse(null);
        if (firmware != null) {
            attributes.put("firmware", SEMVER.matcher(firmware).matches() ? new DeviceAttributeBuilder().withVersion(firmware).build() : string(firmware));
        }
        attributes.put("healthy", new DeviceAttributeBuilder().withBool(health.healthy()).build());
        return attributes;
    }

    private static DeviceAttribute string(String value) {
        return new DeviceAttributeBuilder().withString(value.length() <= MAX_VALUE_LENGTH ? value : value.substring(0, MAX_VALUE_LENGTH)).build();
    }

    private static DeviceAttribute integer(long value) {
        return new DeviceAttributeBuilder().withInt(value).build();
    }
}
