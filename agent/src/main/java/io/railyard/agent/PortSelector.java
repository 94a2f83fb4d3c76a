package io.railyard.agent;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.railyard.node.Hca;
import io.railyard.node.LinkLayer;
import io.railyard.node.Netdev;
import io.railyard.node.PciDevice;
import io.railyard.node.Port;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.List;
import java.util.Locale;

/**
 * Which ports a resource holds. Every list given must match (AND); within a list any entry may (OR).
 * HCA and netdev names are globs; vendors and device ids are PCI ids with or without {@code 0x}.
 */
public record PortSelector(
        List<String> hcas, List<String> linkLayers, List<String> vendors, List<String> deviceIDs,
        List<String> drivers, List<String> netdevs) {

    static final PortSelector ANY = new PortSelector(null, null, null, null, null, null);

    @JsonCreator
    public PortSelector(
            @JsonProperty("hcas") List<String> hcas,
            @JsonProperty("linkLayers") List<String> linkLayers,
            @JsonProperty("vendors") List<String> vendors,
            @JsonProperty("deviceIDs") List<String> deviceIDs,
            @JsonProperty("drivers") List<String> drivers,
            @JsonProperty("netdevs") List<String> netdevs) {
        this.hcas = copy(hcas);
        this.linkLayers = copy(linkLayers);
        this.vendors = copy(vendors);
        this.deviceIDs = copy(deviceIDs);
        this.drivers = copy(drivers);
        this.netdevs = copy(netdevs);
        for (String layer : this.linkLayers) {
            LinkLayer.parse(layer); // fails with "expected InfiniBand or Ethernet"
        }
    }

    public boolean matches(Hca hca, Port port) {
        if (!port.isInfiniBand() && !port.isRoce()) {
            return false; // iWARP and unknown link layers are not RDMA ports NCCL uses
        }
        return anyGlob(hcas, hca.name())
                && (linkLayers.isEmpty() || linkLayers.contains(port.linkLayer().map(Object::toString).orElse("")))
                && anyId(vendors, hca.pci().flatMap(PciDevice::vendor).orElse(""))
                && anyId(deviceIDs, hca.pci().flatMap(PciDevice::device).orElse(""))
                && (drivers.isEmpty() || drivers.contains(hca.pci().flatMap(PciDevice::driver).orElse("")))
                && anyGlob(netdevs, port.netdev().map(Netdev::name).orElse(""));
    }

    private static boolean anyGlob(List<String> globs, String name) {
        if (globs.isEmpty()) {
            return true;
        }
        Path path = Path.of(name.isEmpty() ? "-" : name);
        return globs.stream().anyMatch(glob -> {
            PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + glob);
            return !name.isEmpty() && matcher.matches(path);
        });
    }

    private static boolean anyId(List<String> ids, String actual) {
        return ids.isEmpty() || ids.stream().anyMatch(id -> normalize(id).equals(normalize(actual)));
    }

    private static String normalize(String id) {
        String lower = id.strip().toLowerCase(Locale.ROOT);
        return lower.startsWith("0x") ? lower.substring(2) : lower;
    }

    private static List<String> copy(List<String> list) {
        return list == null ? List.of() : List.copyOf(list);
    }
}
