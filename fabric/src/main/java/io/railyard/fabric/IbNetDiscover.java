package io.railyard.fabric;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code ibnetdiscover} output, plain, {@code -g} (grouped) or {@code -p} (one line per port), into a {@link Fabric}.
 * Record lines are read by hand rather than by regular expressions: a large fabric prints a hundred thousand of them, and
 * the command runs once, before the JIT would make patterns fast.
 */
public final class IbNetDiscover {
    private static final Pattern PORT_LINE = Pattern.compile(
            "^(CA|SW|RT)\\s+(\\d+)\\s+(\\d+)\\s+0x([0-9a-fA-F]+)\\s+(\\d+)x\\s+(\\S+)\\s+-\\s+(CA|SW|RT)\\s+(\\d+)\\s+(\\d+)\\s+0x([0-9a-fA-F]+)"
                    + "\\s+\\(\\s*'(.*)'\\s+-\\s+'(.*)'\\s*\\)\\s*$");

    /** What one line of the record form says, read without the lines around it: the lines are read in parallel. */
    private sealed interface Said permits Declared, Header, PortLine {}

    /** {@code switchguid=0x...}: the GUID of the record that follows. */
    private record Declared(Guid guid) implements Said {}

    private record Header(FabricNode.Type type, String id, String description, int ports, int lid, String line) implements Said {}

    /**
     * @param source, peerIdStart, peerIdEnd where the peer's id is in the line: most are never needed as strings
     * @param peerGuid the GUID the peer's id names ({@code S-<guid>}), null if it names none
     * @param ownPortGuid, ownLid what an HCA's port line says of the HCA itself: null, 0 where it says nothing
     */
    private record PortLine(int port, String source, int peerIdStart, int peerIdEnd, Guid peerGuid, int peerPort, String width, String speed,
            Guid ownPortGuid, int ownLid, String line) implements Said {
        String peerId() {
            return source.substring(peerIdStart, peerIdEnd);
        }
    }

    private record PendingPort(Guid node, PortLine line) {}

    private IbNetDiscover() {}

    /** The fabric in this output; lines that are neither records nor ports are skipped. */
    public static Fabric parse(List<String> lines) {
        Fabric fabric = isPortsForm(lines) ? parsePorts(lines) : parseRecords(lines);
        if (fabric.nodes().isEmpty()) {
            throw new FabricInputException("no Switch or Ca record found: this is not ibnetdiscover output");
        }
        return fabric;
    }

    /** {@code -p} output is port lines from the first line on; the record form starts with comments and {@code vendid=}. */
    private static boolean isPortsForm(List<String> lines) {
        return lines.stream().filter(line -> !line.isBlank() && !line.startsWith("#")).limit(20)
                .anyMatch(line -> PORT_LINE.matcher(line).find());
    }

    private static Fabric parseRecords(List<String> lines) {
        // reading each line is most of the work and needs no other line; what they say is put together in order below
        List<Said> said = lines.parallelStream().map(IbNetDiscover::said).toList();
        Map<String, FabricNode> byId = new LinkedHashMap<>();
        HashMap<Guid, Guid> portGuids = new HashMap<>();
        List<PendingPort> pending = new ArrayList<>();
        Guid declaredGuid = null;
        String currentId = null;
        FabricNode current = null;
        for (Said line : said) {
            if (line instanceof PortLine port && current != null) {
                if (!current.isSwitch()) {
                    if (port.ownPortGuid != null) {
                        portGuids.put(port.ownPortGuid, current.guid());
                    }
                    if (current.lid() == 0 && port.ownLid > 0) {
                        current = new FabricNode(current.guid(), current.type(), current.description(), current.ports(), port.ownLid,
                                current.evidence());
                        byId.put(currentId, current);
                    }
                }
                pending.add(new PendingPort(current.guid(), port));
            } else if (line instanceof Declared declared) {
                declaredGuid = declared.guid;
            } else if (line instanceof Header header) {
                current = new FabricNode(declaredGuid != null ? declaredGuid : guidOfId(header.id), header.type, header.description,
                        header.ports, header.lid, header.line);
                currentId = header.id;
                byId.put(currentId, current);
                declaredGuid = null;
            }
        }
        // a peer is the node its id names, unless its record declared another GUID (switchguid=): rare, so only those are looked up
        Map<String, Guid> declaredElse = new HashMap<>();
        byId.forEach((id, node) -> {
            if (!node.guid().equals(guidOfId(id, 0, id.length()))) {
                declaredElse.put(id, node.guid());
            }
        });
        Cables cables = new Cables(pending.size());
        for (PendingPort pendingPort : pending) {
            PortLine port = pendingPort.line;
            Guid peer = port.peerGuid != null && (declaredElse.isEmpty() || !declaredElse.containsKey(port.peerId())) ? port.peerGuid
                    : declaredElse.computeIfAbsent(port.peerId(), IbNetDiscover::guidOfId);
            cables.add(new Cable(new Cable.End(pendingPort.node, port.port), new Cable.End(peer, port.peerPort), port.width, port.speed,
                    port.line));
        }
        HashMap<Guid, FabricNode> nodes = HashMap.newHashMap(byId.size());
        byId.values().forEach(node -> nodes.put(node.guid(), node));
        return new Fabric(nodes, cables.list, portGuids);
    }

    /** What this line says; null for lines that say nothing here (vendid=, comments, blank lines). */
    private static Said said(String line) {
        if (line.startsWith("[")) {
            return port(line);
        } else if (line.startsWith("switchguid=0x") || line.startsWith("caguid=0x") || line.startsWith("rtguid=0x")) {
            int hex = line.indexOf("0x") + 2;
            Guid declared = Guid.ofHex(line, hex, hexEnd(line, hex));
            return declared == null ? null : new Declared(declared); // a line cut short declares nothing
        } else if (line.startsWith("Switch") || line.startsWith("Ca") || line.startsWith("Rt")) {
            return header(line);
        }
        return null;
    }

    /** {@code Switch 40 "S-b8cef60300a1b205"  # "MF0;leaf-04:MQM8700/U1" enhanced port 0 lid 9 lmc 0}; null if it is not one. */
    private static Header header(String line) {
        int space = indexOfWhitespace(line, 0);
        String type = space < 0 ? "" : line.substring(0, space);
        int firstQuote = line.indexOf('"');
        int hash = line.indexOf('#', firstQuote + 1);
        String id = quoted(line, 0);
        String description = hash < 0 ? null : quoted(line, hash);
        if (!(type.equals("Switch") || type.equals("Ca") || type.equals("Rt")) || id == null || description == null) {
            return null;
        }
        int ports = intIn(line, space, firstQuote, 0);
        String rest = line.substring(line.indexOf('"', line.indexOf('"', hash) + 1) + 1);
        return new Header(type.equals("Switch") ? FabricNode.Type.SWITCH : FabricNode.Type.CA, id, description, ports, lidAfter(rest, 0),
                line.strip());
    }

    /**
     * A port line: {@code [1]  "H-043f720300e1a012"[1](43f720300e1a013)  # "gpu-node-05 mlx5_1" lid 16 4xHDR} in a switch
     * record, {@code [1](43f720300e1a013)  "S-b8cef60300a1b205"[1]  # lid 16 lmc 0 "MF0;leaf-04:MQM8700/U1" lid 9 4xHDR}
     * in an HCA's, which also gives the HCA's own port GUID and LID.
     */
    private static PortLine port(String line) {
        int close = line.indexOf(']');
        int port = close < 0 ? -1 : intIn(line, 1, close, -1);
        int idStart = line.indexOf('"', close);
        int idEnd = idStart < 0 ? -1 : line.indexOf('"', idStart + 1);
        if (port < 0 || idEnd < 0 || idEnd + 1 >= line.length() || line.charAt(idEnd + 1) != '[') {
            return null;
        }
        int peerClose = line.indexOf(']', idEnd);
        int peerPort = peerClose < 0 ? -1 : intIn(line, idEnd + 2, peerClose, -1);
        if (peerPort < 0) {
            return null;
        }
        int hash = line.indexOf('#', peerClose);
        Guid ownPortGuid = close + 1 < line.length() && line.charAt(close + 1) == '(' ? Guid.ofHex(line, close + 2, hexEnd(line, close + 2)) : null;
        int lid = hash < 0 ? -1 : skipWhitespace(line, hash + 1);
        int ownLid = lid >= 0 && line.startsWith("lid ", lid) ? lidAfter(line, lid) : 0;
        // the rate is the comment's last word, 4xNDR: lanes, x, lane speed
        int end = line.length();
        while (end > 0 && Character.isWhitespace(line.charAt(end - 1))) {
            end--;
        }
        int start = end;
        while (start > hash + 1 && !Character.isWhitespace(line.charAt(start - 1))) {
            start--;
        }
        int x = line.indexOf('x', start);
        boolean hasRate = hash >= 0 && x > start && x + 1 < end && intIn(line, start, x, -1) >= 0;
        return new PortLine(port, line, idStart + 1, idEnd, guidOfId(line, idStart + 1, idEnd), peerPort, hasRate ? width(line, start, x) : "",
                hasRate ? LaneSpeed.named(line, x + 1, end) : "", ownPortGuid, ownLid, line.strip());
    }

    /** {@code 4X} for the digits of {@code 4xNDR}; the usual widths are constants, not one string per port. */
    private static String width(String line, int start, int x) {
        return x == start + 1 && line.charAt(start) == '4' ? "4X" : line.substring(start, x) + "X";
    }

    private static Fabric parsePorts(List<String> lines) {
        HashMap<Guid, FabricNode> nodes = new HashMap<>();
        Cables cables = new Cables(lines.size());
        for (String line : lines) {
            Matcher port = PORT_LINE.matcher(line);
            if (!port.find()) {
                continue;
            }
            FabricNode a = portNode(nodes, port.group(1), port.group(2), port.group(3), port.group(4), port.group(11), line);
            FabricNode b = portNode(nodes, port.group(7), port.group(8), port.group(9), port.group(10), port.group(12), line);
            cables.add(new Cable(new Cable.End(a.guid(), Integer.parseInt(port.group(3))), new Cable.End(b.guid(), Integer.parseInt(port.group(9))),
                    port.group(5) + "X", LaneSpeed.named(port.group(6), 0, port.group(6).length()), line.strip()));
        }
        return new Fabric(nodes, cables.list, new HashMap<>());
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

    /** The cables in the order first shown, each once: both ends of a cable print it. */
    private static final class Cables {
        private final Set<Ends> seen;
        private final List<Cable> list = new ArrayList<>();

        Cables(int expected) {
            seen = HashSet.newHashSet(expected);
        }

        void add(Cable cable) {
            Cable normalized = cable.normalized();
            if (seen.add(new Ends(normalized.a(), normalized.b()))) {
                list.add(normalized);
            }
        }
    }

    /** A cable's identity: its two ends, not its width, speed or the line that showed it. */
    private record Ends(Cable.End a, Cable.End b) {
        // written out, as Guid's are: the generated ones are slow before the JIT has run
        @Override
        public boolean equals(Object other) {
            return other instanceof Ends ends && ends.a.equals(a) && ends.b.equals(b);
        }

        @Override
        public int hashCode() {
            return a.hashCode() * 31 + b.hashCode();
        }
    }

    /** ibnetdiscover names nodes {@code S-<guid>}, {@code H-<guid>} or {@code R-<guid>}. */
    private static Guid guidOfId(String id) {
        Guid guid = guidOfId(id, 0, id.length());
        if (guid == null) {
            throw new FabricInputException("node id \"" + id + "\" has no GUID and no switchguid=/caguid= line before it");
        }
        return guid;
    }

    /** The GUID the id in {@code text[from, to)} names; null if it names none. */
    private static Guid guidOfId(String text, int from, int to) {
        int dash = text.indexOf('-', from);
        return Guid.ofHex(text, dash >= 0 && dash < to ? dash + 1 : from, to);
    }

    /** The text between the first pair of double quotes at or after {@code from}, or null. */
    private static String quoted(String line, int from) {
        int open = line.indexOf('"', from);
        int close = open < 0 ? -1 : line.indexOf('"', open + 1);
        return close < 0 ? null : line.substring(open + 1, close);
    }

    /** Where the hex digits that start at {@code from} end. */
    private static int hexEnd(String line, int from) {
        int end = from;
        while (end < line.length() && Character.digit(line.charAt(end), 16) >= 0) {
            end++;
        }
        return end;
    }

    /** The number after the first {@code lid } at or after {@code from}, or 0. */
    private static int lidAfter(String text, int from) {
        int at = text.indexOf("lid ", from);
        if (at < 0) {
            return 0;
        }
        int start = at + 4;
        int end = start;
        while (end < text.length() && Character.isDigit(text.charAt(end))) {
            end++;
        }
        return end == start ? 0 : Integer.parseInt(text.substring(start, end));
    }

    private static int indexOfWhitespace(String text, int from) {
        for (int i = from; i < text.length(); i++) {
            if (Character.isWhitespace(text.charAt(i))) {
                return i;
            }
        }
        return -1;
    }

    /** The decimal number in {@code text[from, to)}, blanks around it allowed; {@code otherwise} if there is none. */
    private static int intIn(String text, int from, int to, int otherwise) {
        int start = skipWhitespace(text, from);
        int end = to;
        while (end > start && Character.isWhitespace(text.charAt(end - 1))) {
            end--;
        }
        if (start < 0 || start >= end || end - start > 9) {
            return otherwise;
        }
        int value = 0;
        for (int i = start; i < end; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return otherwise;
            }
            value = value * 10 + c - '0';
        }
        return value;
    }

    /** The first index at or after {@code from} that is not whitespace; -1 if there is none. */
    private static int skipWhitespace(String text, int from) {
        for (int i = from; i < text.length(); i++) {
            if (!Character.isWhitespace(text.charAt(i))) {
                return i;
            }
        }
        return -1;
    }
}
