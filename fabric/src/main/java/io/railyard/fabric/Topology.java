package io.railyard.fabric;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The fabric's tiers, read from its cables: a leaf is a switch with an HCA on it, each switch one tier above its nearest
 * leaf; hosts with their HCAs and leaves; leaves that share hosts grouped (the rails of a rail-optimized pod); spines that
 * share a leaf grouped.
 */
public record Topology(List<Switch> switches, List<Host> hosts, List<Group> groups, List<SpineGroup> spineGroups) {
    public enum Role { leaf, spine, core }

    public record Switch(Guid guid, String name, int tier, Role role, int ports, String description) {}

    public record Hca(String name, Guid guid, int lid, String leaf) {}

    /** @param node the Kubernetes node name: the host unless the node name map says otherwise */
    public record Host(String host, String node, List<Hca> hcas, List<String> leaves, String group) {}

    /** @param spineGroup the spine group its leaves uplink to; null on a fabric without spines */
    public record Group(String name, List<String> leaves, List<String> hosts, String spineGroup) {
        public boolean railOptimized() {
            return leaves.size() > 1;
        }
    }

    public record SpineGroup(String name, List<String> spines) {}

    public Switch switchNamed(String name) {
        return switches.stream().filter(s -> s.name.equals(name)).findFirst().orElseThrow();
    }

    public Group group(String name) {
        return groups.stream().filter(g -> g.name.equals(name)).findFirst().orElseThrow();
    }

    /** The topology of this fabric; {@code nodeNames} maps hosts to Kubernetes node names where they differ. */
    public static Topology of(Fabric fabric, Map<String, String> nodeNames) {
        Map<Guid, List<Cable>> cables = fabric.cablesByNode();
        Map<Guid, String> names = SwitchNames.of(fabric.switches());
        Map<Guid, Integer> tiers = tiers(fabric, cables);
        List<Switch> switches = fabric.switches().stream()
                .map(s -> new Switch(s.guid(), names.get(s.guid()), tiers.getOrDefault(s.guid(), 0), role(tiers.getOrDefault(s.guid(), 0)),
                        s.ports(), s.description()))
                .sorted(Comparator.comparingInt(Switch::tier).thenComparing(Switch::name)).toList();

        Map<String, List<Hca>> hcasByHost = new TreeMap<>();
        for (FabricNode ca : fabric.cas()) {
            String leaf = cables.getOrDefault(ca.guid(), List.of()).stream()
                    .map(c -> fabric.node(c.peerOf(ca.guid()).node())).filter(n -> n != null && n.isSwitch())
                    .map(n -> names.get(n.guid())).findFirst().orElse(null);
            hcasByHost.computeIfAbsent(ca.host(), h -> new ArrayList<>()).add(new Hca(ca.device(), ca.guid(), ca.lid(), leaf));
        }
        hcasByHost.values().forEach(list -> list.sort(Comparator.comparing(Hca::name)));

        Unions leafUnions = new Unions();
        switches.stream().filter(s -> s.role == Role.leaf).forEach(s -> leafUnions.joinAll(List.of(s.name)));
        hcasByHost.values().forEach(hcas -> leafUnions.joinAll(hcas.stream().map(Hca::leaf).filter(l -> l != null).toList()));
        Unions spineUnions = new Unions();
        switches.stream().filter(s -> s.role == Role.spine).forEach(s -> spineUnions.joinAll(List.of(s.name)));
        Map<String, List<String>> uplinks = uplinks(fabric, cables, names, tiers);
        switches.stream().filter(s -> s.role == Role.leaf).forEach(s -> spineUnions.joinAll(uplinks.get(s.name)));

        List<SpineGroup> spineGroups = spineUnions.sets().stream().map(spines -> new SpineGroup(groupName("spines", spines), spines)).toList();
        Map<String, String> spineGroupOf = new HashMap<>();
        spineGroups.forEach(g -> g.spines.forEach(s -> spineGroupOf.put(s, g.name)));

        Map<String, String> groupOfLeaf = new HashMap<>();
        List<Group> groups = new ArrayList<>();
        for (List<String> leaves : leafUnions.sets()) {
            String name = groupName("rails", leaves);
            leaves.forEach(l -> groupOfLeaf.put(l, name));
            List<String> hosts = hcasByHost.entrySet().stream()
                    .filter(e -> e.getValue().stream().anyMatch(h -> leaves.contains(h.leaf()))).map(Map.Entry::getKey).toList();
            String spineGroup = leaves.stream().flatMap(l -> uplinks.getOrDefault(l, List.of()).stream()).map(spineGroupOf::get)
                    .filter(g -> g != null).findFirst().orElse(null);
            groups.add(new Group(name, leaves, hosts, spineGroup));
        }
        List<Host> hosts = hcasByHost.entrySet().stream().map(e -> {
            List<String> leaves = e.getValue().stream().map(Hca::leaf).filter(l -> l != null).distinct().toList();
            return new Host(e.getKey(), nodeNames.getOrDefault(e.getKey(), e.getKey()), List.copyOf(e.getValue()), leaves,
                    leaves.isEmpty() ? null : groupOfLeaf.get(leaves.getFirst()));
        }).toList();
        return new Topology(switches, hosts, List.copyOf(groups), spineGroups);
    }

    /** A group of one is named after its member; a larger one after its first member, with a prefix saying what it is. */
    private static String groupName(String prefix, List<String> members) {
        return members.size() == 1 ? members.getFirst() : LabelValue.of(prefix + "-" + members.getFirst());
    }

    private static Role role(int tier) {
        return tier <= 1 ? Role.leaf : tier == 2 ? Role.spine : Role.core;
    }

    /** Tier 1 for switches with an HCA, then one more per hop away from the nearest leaf (breadth first over switch links). */
    private static Map<Guid, Integer> tiers(Fabric fabric, Map<Guid, List<Cable>> cables) {
        Map<Guid, Integer> tiers = new HashMap<>();
        Deque<Guid> queue = new ArrayDeque<>();
        for (FabricNode sw : fabric.switches()) {
            boolean leaf = cables.getOrDefault(sw.guid(), List.of()).stream()
                    .map(c -> fabric.node(c.peerOf(sw.guid()).node())).anyMatch(n -> n != null && !n.isSwitch());
            if (leaf) {
                tiers.put(sw.guid(), 1);
                queue.add(sw.guid());
            }
        }
        while (!queue.isEmpty()) {
            Guid sw = queue.poll();
            for (Cable cable : cables.getOrDefault(sw, List.of())) {
                Guid peer = cable.peerOf(sw).node();
                FabricNode node = fabric.node(peer);
                if (node != null && node.isSwitch() && !tiers.containsKey(peer)) {
                    tiers.put(peer, tiers.get(sw) + 1);
                    queue.add(peer);
                }
            }
        }
        return tiers;
    }

    /** Each switch's distinct neighbours one tier up, by name. */
    static Map<String, List<String>> uplinks(Fabric fabric, Map<Guid, List<Cable>> cables, Map<Guid, String> names, Map<Guid, Integer> tiers) {
        Map<String, List<String>> uplinks = new LinkedHashMap<>();
        for (FabricNode sw : fabric.switches()) {
            int tier = tiers.getOrDefault(sw.guid(), 0);
            List<String> up = cables.getOrDefault(sw.guid(), List.of()).stream().map(c -> c.peerOf(sw.guid()).node())
                    .filter(peer -> tiers.getOrDefault(peer, 0) == tier + 1).map(names::get).distinct().sorted().toList();
            uplinks.put(names.get(sw.guid()), up);
        }
        return uplinks;
    }

    /** Union-find over names; sets come out sorted, each set's members sorted. */
    private static final class Unions {
        private final Map<String, String> parent = new HashMap<>();

        /** Puts these names in one set (a single name gets a set of its own). */
        void joinAll(List<String> names) {
            for (String name : names) {
                parent.put(root(name), root(names.getFirst()));
            }
        }

        private String root(String name) {
            String p = parent.computeIfAbsent(name, Function.identity());
            if (p.equals(name)) {
                return name;
            }
            String root = root(p);
            parent.put(name, root);
            return root;
        }

        List<List<String>> sets() {
            Map<String, Set<String>> byRoot = parent.keySet().stream()
                    .collect(Collectors.groupingBy(this::root, Collectors.toCollection(TreeSet::new)));
            return byRoot.values().stream().map(set -> List.copyOf(set)).sorted(Comparator.comparing(List::getFirst)).toList();
        }
    }
}
