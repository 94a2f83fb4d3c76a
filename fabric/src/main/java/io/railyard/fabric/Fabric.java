package io.railyard.fabric;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** The fabric as one discovery saw it: switches and HCAs by GUID, and the cables between their ports. */
public final class Fabric {
    private final Map<Guid, FabricNode> nodes;
    private final List<Cable> cables;
    private final Map<Guid, Guid> portGuids;
    private final List<FabricNode> switches;
    private final List<FabricNode> cas;
    private final Map<Guid, List<Cable>> cablesByNode;

    /** By description, then GUID. */
    private static final Comparator<FabricNode> BY_DESCRIPTION = (x, y) -> {
        int byDescription = x.description().compareTo(y.description());
        return byDescription != 0 ? byDescription : x.guid().compareTo(y.guid());
    };

    /**
     * Made by the parsers, which hand their maps and list over: they are not copied (a large fabric has a hundred thousand
     * cables). Hash maps, not Map.copyOf: a large fabric looks nodes up a few hundred thousand times before the JIT has run,
     * and the immutable maps' probing costs twice as much there.
     *
     * @param portGuids HCA port GUIDs (which ibqueryerrors and iblinkinfo print) to the HCA's node GUID
     */
    Fabric(HashMap<Guid, FabricNode> nodes, List<Cable> cables, HashMap<Guid, Guid> portGuids) {
        this.nodes = Collections.unmodifiableMap(nodes);
        this.cables = Collections.unmodifiableList(cables);
        this.portGuids = Collections.unmodifiableMap(portGuids);
        // the HCAs, the most nodes, are sorted on another thread while the cables are filed by node here
        this.cablesByNode = HashMap.newHashMap(nodes.size());
        CompletableFuture<List<FabricNode>> sortedCas = CompletableFuture.supplyAsync(() -> sorted(false));
        this.switches = sorted(true);
        for (Cable cable : cables) {
            cablesByNode.computeIfAbsent(cable.a().node(), g -> new ArrayList<>(1)).add(cable);
            cablesByNode.computeIfAbsent(cable.b().node(), g -> new ArrayList<>(1)).add(cable);
        }
        cablesByNode.forEach((guid, list) -> {
            if (list.size() > 1) {
                sortByPort(list, guid);
            }
        });
        this.cas = sortedCas.join();
    }

    public Map<Guid, FabricNode> nodes() {
        return nodes;
    }

    public List<Cable> cables() {
        return cables;
    }

    /** Switches by description, then GUID. */
    public List<FabricNode> switches() {
        return switches;
    }

    /** HCAs by description, then GUID. */
    public List<FabricNode> cas() {
        return cas;
    }

    public FabricNode node(Guid guid) {
        return nodes.get(guid);
    }

    /** The node a GUID names: a node GUID, or an HCA's port GUID. */
    public FabricNode nodeOrPort(Guid guid) {
        FabricNode node = nodes.get(guid);
        return node != null ? node : nodes.get(portGuids.get(guid));
    }

    /** A node's cables in port order; none for a node the fabric does not have. */
    public List<Cable> cablesOf(Guid node) {
        return cablesByNode.getOrDefault(node, List.of());
    }

    /** The node at the other end of each of this node's cables that is a switch, in port order. */
    public List<FabricNode> switchNeighbours(Guid node) {
        List<FabricNode> neighbours = new ArrayList<>();
        for (Cable cable : cablesOf(node)) {
            FabricNode peer = nodes.get(cable.peerOf(node).node());
            if (peer != null && peer.isSwitch()) {
                neighbours.add(peer);
            }
        }
        return neighbours;
    }

    /** In port order, stably: by numbers that are the port, then the place (no comparator called a few hundred thousand times). */
    private static void sortByPort(List<Cable> list, Guid node) {
        long[] keys = new long[list.size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = (long) list.get(i).endOf(node).port() << 32 | i;
        }
        Arrays.sort(keys);
        List<Cable> unsorted = List.copyOf(list);
        for (int i = 0; i < keys.length; i++) {
            list.set(i, unsorted.get((int) keys[i]));
        }
    }

    private List<FabricNode> sorted(boolean wantSwitches) {
        List<FabricNode> list = new ArrayList<>();
        for (FabricNode node : nodes.values()) {
            if (node.isSwitch() == wantSwitches) {
                list.add(node);
            }
        }
        list.sort(BY_DESCRIPTION);
        return List.copyOf(list);
    }
}
