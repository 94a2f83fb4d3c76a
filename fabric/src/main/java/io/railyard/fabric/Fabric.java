package io.railyard.fabric;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fabric as one discovery saw it: switches and HCAs by GUID, and the cables between their ports.
 *
 * @param portGuids HCA port GUIDs (which ibqueryerrors and iblinkinfo print) to the HCA's node GUID
 */
public record Fabric(Map<Guid, FabricNode> nodes, List<Cable> cables, Map<Guid, Guid> portGuids) {
    public Fabric {
        nodes = Map.copyOf(nodes);
        cables = List.copyOf(cables);
        portGuids = Map.copyOf(portGuids);
    }

    /** The node a GUID names: a node GUID, or an HCA's port GUID. */
    public FabricNode nodeOrPort(Guid guid) {
        FabricNode node = nodes.get(guid);
        return node != null ? node : nodes.get(portGuids.get(guid));
    }

    public List<FabricNode> switches() {
        return sorted(true);
    }

    public List<FabricNode> cas() {
        return sorted(false);
    }

    public FabricNode node(Guid guid) {
        return nodes.get(guid);
    }

    /** Cables by node, each node's in port order. */
    public Map<Guid, List<Cable>> cablesByNode() {
        Map<Guid, List<Cable>> byNode = new LinkedHashMap<>();
        for (Cable cable : cables) {
            byNode.computeIfAbsent(cable.a().node(), g -> new ArrayList<>()).add(cable);
            byNode.computeIfAbsent(cable.b().node(), g -> new ArrayList<>()).add(cable);
        }
        byNode.forEach((guid, list) -> list.sort(Comparator.comparingInt(c -> c.endOf(guid).port())));
        return byNode;
    }

    private List<FabricNode> sorted(boolean switches) {
        return nodes.values().stream().filter(n -> n.isSwitch() == switches)
                .sorted(Comparator.comparing(FabricNode::description).thenComparing(FabricNode::guid)).toList();
    }
}
