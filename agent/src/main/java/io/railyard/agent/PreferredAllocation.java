package io.railyard.agent;

import io.railyard.node.PathClass;
import io.railyard.node.PciDevice;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Chooses which available devices to give a container: every must-include device, then devices on the same NUMA
 * node, nearest in the PCI tree (one PCIe switch before two, before the host bridge), then by id.
 */
final class PreferredAllocation {
    private PreferredAllocation() {}

    static List<String> choose(Map<String, PluginDevice> byId, List<String> available, List<String> mustInclude, int size) {
        Set<String> chosen = new LinkedHashSet<>(mustInclude);
        List<PluginDevice> candidates = available.stream()
                .filter(id -> !chosen.contains(id))
                .map(byId::get)
                .filter(device -> device != null)
                .sorted(Comparator.comparing(PluginDevice::id))
                .toList();
        List<PluginDevice> pool = new ArrayList<>(candidates);
        if (chosen.isEmpty() && !pool.isEmpty() && size > 0) {
            PluginDevice seed = seed(pool);
            chosen.add(seed.id());
            pool.remove(seed);
        }
        while (chosen.size() < size && !pool.isEmpty()) {
            List<PluginDevice> picked = chosen.stream().map(byId::get).filter(d -> d != null).toList();
            PluginDevice best = pool.stream().min(Comparator
                    .comparingInt((PluginDevice d) -> sameNuma(d, picked) ? 0 : 1)
                    .thenComparing(d -> nearest(d, picked))
                    .thenComparing(PluginDevice::id)).orElseThrow();
            chosen.add(best.id());
            pool.remove(best);
        }
        return List.copyOf(chosen);
    }

    /** With nothing required, start on the NUMA node that has the most available devices (lowest node on a tie). */
    private static PluginDevice seed(List<PluginDevice> pool) {
        Map<Integer, Integer> perNode = new LinkedHashMap<>();
        pool.forEach(d -> perNode.merge(d.numaNode(), 1, Integer::sum));
        int node = perNode.entrySet().stream()
                .max(Comparator.comparingInt((Map.Entry<Integer, Integer> e) -> e.getValue()).thenComparing(e -> -e.getKey()))
                .orElseThrow().getKey();
        return pool.stream().filter(d -> d.numaNode() == node).findFirst().orElseThrow();
    }

    private static boolean sameNuma(PluginDevice device, List<PluginDevice> picked) {
        return picked.isEmpty() || picked.stream().anyMatch(p -> p.numaNode() == device.numaNode());
    }

    private static PathClass nearest(PluginDevice device, List<PluginDevice> picked) {
        if (device.hca().pci().isKnown()) {
            PciDevice pci = device.hca().pci().orElseThrow();
            return picked.stream()
                    .filter(p -> p.hca().pci().isKnown())
                    .map(p -> PathClass.between(pci, p.hca().pci().orElseThrow()))
                    .min(Comparator.naturalOrder())
                    .orElse(PathClass.SYS);
        }
        return PathClass.SYS;
    }
}
