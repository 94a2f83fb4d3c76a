package io.railyard.fabric;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads {@code ibnetdiscover} output, plain, {@code -g} (grouped) or {@code -p} (one line per port), into a {@link Fabric}. */
public final class IbNetDiscover {
    private static final Pattern NODE_GUID = Pattern.compile("^(?:switchguid|caguid|rtguid)=0x([0-9a-fA-F]+)");
    private static final Pattern HEADER = Pattern.compile("^(Switch|Ca|Rt)\\s+(\\d+)\\s+\"([^\"]+)\"\\s*#\\s*\"(.*)\"(.*)$");
    private static final Pattern PORT = Pattern.compile(
            "^\\[(\\d+)\\](?:\\(([0-9a-fA-F]+)\\))?\\s*\"([^\"]+)\"\\[(\\d+)\\](?:\\(([0-9a-fA-F]+)\\))?\\s*#?(.*)$");
    private static final Pattern LID = Pattern.compile("lid (\\d+)");
    private static final Pattern RATE = Pattern.compile("(\\d+)x(\\w+)\\s*$", Pattern.CASE_INSENSITIVE);
    private static final Pattern PORT_LINE = Pattern.compile(
            "^(CA|SW|RT)\\s+(\\d+)\\s+(\\d+)\\s+0x([0-9a-fA-F]+)\\s+(\\d+)x\\s+(\\S+)\\s+-\\s+(CA|SW|RT)\\s+(\\d+)\\s+(\\d+)\\s+0x([0-9a-fA-F]+)"
                    + "\\s+\\(\\s*'(.*)'\\s+-\\s+'(.*)'\\s*\\)\\s*$");

    private IbNetDiscover() {}

    /** The fabric in this output; lines that are neither records nor ports are skipped. */
    public static Fabric parse(List<String> lines) {
        boolean portsForm = lines.stream().anyMatch(line -> PORT_LINE.matcher(line).find());
        Fabric fabric = portsForm ? parsePorts(lines) : parseRecords(lines);
        if (fabric.nodes().isEmpty()) {
            throw new FabricInputException("no Switch or Ca record found: this is not ibnetdiscover output");
        }
        return fabric;
    }

    private static Fabric parseRecords(List<String> lines) {
        Map<String, FabricNode> byId = new LinkedHashMap<>();
        Map<Guid, Guid> portGuids = new HashMap<>();
        record PendingPort(String nodeId, int port, String peerId, int peerPort, String width, String speed, String line) {}
        List<PendingPort> pending = new ArrayList<>();
        Guid declaredGuid = null;
        String currentId = null;
        for (String line : lines) {
            Matcher guid = NODE_GUID.matcher(line);
            if (guid.find()) {
                declaredGuid = Guid.parse(guid.group(1));
                continue;
            }
            Matcher header = HEADER.matcher(line);
            if (header.find()) {
                currentId = header.group(3);
                Guid nodeGuid = declaredGuid != null ? declaredGuid : guidOfId(currentId);
                FabricNode.Type type = header.group(1).equals("Switch") ? FabricNode.Type.SWITCH : FabricNode.Type.CA;
                Matcher lid = LID.matcher(header.group(5));
                byId.put(currentId, new FabricNode(nodeGuid, type, header.group(4), Integer.parseInt(header.group(2)),
                        lid.find() ? Integer.parseInt(lid.group(1)) : 0, line.strip()));
                declaredGuid = null;
                continue;
            }
            Matcher port = PORT.matcher(line);
            if (port.find() && currentId != null) {
                FabricNode node = byId.get(currentId);
                String comment = port.group(6);
                if (!node.isSwitch()) {
                    if (port.group(2) != null) {
                        portGuids.put(Guid.parse(port.group(2)), node.guid());
                    }
                    Matcher ownLid = LID.matcher(comment);
                    if (node.lid() == 0 && ownLid.find()) {
                        byId.put(currentId, new FabricNode(node.guid(), node.type(), node.description(), node.ports(),
                                Integer.parseInt(ownLid.group(1)), node.evidence()));
                    }
                }
                Matcher rate = RATE.matcher(comment);
                boolean hasRate = rate.find();
                pending.add(new PendingPort(currentId, Integer.parseInt(port.group(1)), port.group(3), Integer.parseInt(port.group(4)),
                        hasRate ? rate.group(1) + "X" : "", hasRate ? rate.group(2).toUpperCase() : "", line.strip()));
            }
        }
        Map<String, Guid> guidById = new HashMap<>();
        byId.forEach((id, node) -> guidById.put(id, node.guid()));
        Map<Cable, Cable> cables = new LinkedHashMap<>();
        for (PendingPort port : pending) {
            Guid peer = guidById.computeIfAbsent(port.peerId, IbNetDiscover::guidOfId);
            Cable cable = new Cable(new Cable.End(guidById.get(port.nodeId), port.port), new Cable.End(peer, port.peerPort),
                    port.width, port.speed, port.line).normalized();
            cables.putIfAbsent(key(cable), cable);
        }
        Map<Guid, FabricNode> nodes = new LinkedHashMap<>();
        byId.values().forEach(node -> nodes.put(node.guid(), node));
        return new Fabric(nodes, List.copyOf(cables.values()), portGuids);
    }

    private static Fabric parsePorts(List<String> lines) {
        Map<Guid, FabricNode> nodes = new LinkedHashMap<>();
        Map<Cable, Cable> cables = new LinkedHashMap<>();
        for (String line : lines) {
            Matcher port = PORT_LINE.matcher(line);
            if (!port.find()) {
                continue;
            }
            FabricNode a = portNode(nodes, port.group(1), port.group(2), port.group(3), port.group(4), port.group(11), line);
            FabricNode b = portNode(nodes, port.group(7), port.group(8), port.group(9), port.group(10), port.group(12), line);
            Cable cable = new Cable(new Cable.End(a.guid(), Integer.parseInt(port.group(3))), new Cable.End(b.guid(), Integer.parseInt(port.group(9))),
                    port.group(5) + "X", port.group(6).toUpperCase(), line.strip()).normalized();
            cables.putIfAbsent(key(cable), cable);
        }
        return new Fabric(nodes, List.copyOf(cables.values()), Map.of());
    }

    /** In the {@code -p} form an HCA is known only by the port GUID printed, so that is its key. */
    private static FabricNode portNode(Map<Guid, FabricNode> nodes, String type, String lid, String port, String guid, String description,
            String line) {
        Guid key = Guid.parse(guid);
        FabricNode known = nodes.get(key);
        int ports = Math.max(Integer.parseInt(port), known == null ? 0 : known.ports());
        FabricNode node = new FabricNode(key, type.equals("SW") ? FabricNode.Type.SWITCH : FabricNode.Type.CA, description.strip(), ports,
                type.equals("SW") || known == null ? Integer.parseInt(lid) : known.lid(), known == null ? line.strip() : known.evidence());
        nodes.put(key, node);
        return node;
    }

    /** A cable's identity is its two ends; width, speed and the line that showed it are not. */
    private static Cable key(Cable cable) {
        return new Cable(cable.a(), cable.b(), "", "", "");
    }

    /** ibnetdiscover names nodes {@code S-<guid>}, {@code H-<guid>} or {@code R-<guid>}. */
    private static Guid guidOfId(String id) {
        int dash = id.indexOf('-');
        try {
            return Guid.parse(dash >= 0 ? id.substring(dash + 1) : id);
        } catch (IllegalArgumentException e) {
            throw new FabricInputException("node id \"" + id + "\" has no GUID and no switchguid=/caguid= line before it");
        }
    }
}
