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
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
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
        Map<Guid, String> names = SwitchNames.of(fabric.switches());
        // the hosts need only the switches' names: they are grouped on another thread while the tiers are found here
        CompletableFuture<Map<String, List<Hca>>> grouping = CompletableFuture.supplyAsync(() -> hcasByHost(fabric, names));
        Map<Guid, Integer> tiers = tiers(fabric);
        List<Switch> switches = new ArrayList<>();
        for (FabricNode s : fabric.switches()) {
            int tier = tiers.getOrDefault(s.guid(), 0);
            switches.add(new Switch(s.guid(), names.get(s.guid()), tier, role(tier), s.ports(), s.description()));
        }
        switches.sort(Comparator.comparingInt(Switch::tier).thenComparing(Switch::name));

        Unions leafUnions = new Unions();
        Unions spineUnions = new Unions();
        Map<String, List<String>> uplinks = uplinks(fabric, names, tiers);
        for (Switch s : switches) {
            if (s.role == Role.leaf) {
                leafUnions.joinAll(List.of(s.name));
                spineUnions.joinAll(uplinks.get(s.name));
            } else if (s.role == Role.spine) {
                spineUnions.joinAll(List.of(s.name));
            }
        }
        Map<String, List<Hca>> hcasByHost = grouping.join();
        Map<String, List<String>> leavesByHost = new LinkedHashMap<>();
        hcasByHost.forEach((host, hcas) -> {
            List<String> leaves = new ArrayList<>(hcas.size());
            for (Hca hca : hcas) {
                if (hca.leaf != null && !leaves.contains(hca.leaf)) {
                    leaves.add(hca.leaf);
                }
            }
            leavesByHost.put(host, leaves);
            leafUnions.joinAll(leaves);
        });

        List<SpineGroup> spineGroups = spineUnions.sets().stream().map(spines -> new SpineGroup(groupName("spines", spines), spines)).toList();
        Map<String, String> spineGroupOf = new HashMap<>();
        spineGroups.forEach(g -> g.spines.forEach(s -> spineGroupOf.put(s, g.name)));

        Map<String, String> groupOfLeaf = new HashMap<>();
        Map<String, List<String>> hostsByGroup = new HashMap<>();
        List<List<String>> leafSets = leafUnions.sets();
        for (List<String> leaves : leafSets) {
            String name = groupName("rails", leaves);
            leaves.forEach(l -> groupOfLeaf.put(l, name));
            hostsByGroup.put(name, new ArrayList<>());
        }
        List<Host> hosts = new ArrayList<>();
        leavesByHost.forEach((host, leaves) -> {
            String group = leaves.isEmpty() ? null : groupOfLeaf.get(leaves.getFirst());
            if (group != null) {
                hostsByGroup.get(group).add(host);
            }
            hosts.add(new Host(host, nodeNames.getOrDefault(host, host), List.copyOf(hcasByHost.get(host)), leaves, group));
        });
        List<Group> groups = new ArrayList<>();
        for (List<String> leaves : leafSets) {
            String name = groupOfLeaf.get(leaves.getFirst());
            String spineGroup = leaves.stream().flatMap(l -> uplinks.getOrDefault(l, List.of()).stream()).map(spineGroupOf::get)
                    .filter(g -> g != null).findFirst().orElse(null);
            groups.add(new Group(name, leaves, List.copyOf(hostsByGroup.get(name)), spineGroup));
        }
        return new Topology(List.copyOf(switches), List.copyOf(hosts), List.copyOf(groups), spineGroups);
    }

    /** Each host's HCAs by device name, the hosts by name; an HCA's leaf is the switch its first cable leads to. */
    private static Map<String, List<Hca>> hcasByHost(Fabric fabric, Map<Guid, String> names) {
        // a hash map sorted once at the end: a tree map compares host names a dozen times an HCA
        Map<String, List<Hca>> byHost = new HashMap<>();
        for (FabricNode ca : fabric.cas()) {
            List<FabricNode> leaves = fabric.switchNeighbours(ca.guid());
            String leaf = leaves.isEmpty() ? null : names.get(leaves.getFirst().guid());
            byHost.computeIfAbsent(ca.host(), h -> new ArrayList<>(8)).add(new Hca(ca.device(), ca.guid(), ca.lid(), leaf));
        }
        List<String> hosts = new ArrayList<>(byHost.keySet());
        hosts.sort(null);
        Map<String, List<Hca>> sorted = LinkedHashMap.newLinkedHashMap(hosts.size());
        for (String host : hosts) {
            List<Hca> hcas = byHost.get(host);
            hcas.sort((x, y) -> x.name.compareTo(y.name));
            sorted.put(host, hcas);
        }
        return sorted;
    }

    /** A group of one is named after its member; a larger one after its first member, with a prefix saying what it is. */
    private static String groupName(String prefix, List<String> members) {
        return members.size() == 1 ? members.getFirst() : LabelValue.of(prefix + "-" + members.getFirst());
    }

    private static Role role(int tier) {
        return tier <= 1 ? Role.leaf : tier == 2 ? Role.spine : Role.core;
    }

    /** Tier 1 for switches with an HCA, then one more per hop away from the nearest leaf (breadth first over switch links). */
    private static Map<Guid, Integer> tiers(Fabric fabric) {
        Map<Guid, Integer> tiers = new HashMap<>();
        Deque<Guid> queue = new ArrayDeque<>();
        for (FabricNode sw : fabric.switches()) {
            for (Cable cable : fabric.cablesOf(sw.guid())) {
                FabricNode peer = fabric.node(cable.peerOf(sw.guid()).node());
                if (peer != null && !peer.isSwitch()) {
                    tiers.put(sw.guid(), 1);
                    queue.add(sw.guid());
                    break;
                }
            }
        }
        while (!queue.isEmpty()) {
            Guid sw = queue.poll();
            for (FabricNode peer : fabric.switchNeighbours(sw)) {
                if (!tiers.containsKey(peer.guid())) {
                    tiers.put(peer.guid(), tiers.get(sw) + 1);
                    queue.add(peer.guid());
                }
            }
        }
        return tiers;
    }

    /** Each switch's distinct neighbours one tier up, by name. */
    private static Map<String, List<String>> uplinks(Fabric fabric, Map<Guid, String> names, Map<Guid, Integer> tiers) {
        Map<String, List<String>> uplinks = new HashMap<>();
        for (FabricNode sw : fabric.switches()) {
            int tier = tiers.getOrDefault(sw.guid(), 0);
            Set<String> up = new TreeSet<>();
            for (FabricNode peer : fabric.switchNeighbours(sw.guid())) {
                if (tiers.getOrDefault(peer.guid(), 0) == tier + 1) {
                    up.add(names.get(peer.guid()));
                }
            }
            uplinks.put(names.get(sw.guid()), List.copyOf(up));
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
