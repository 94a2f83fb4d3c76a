package io.railyard.fabric;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** {@code railyard fabric}'s report: as a map for JSON and YAML, and as text for people. */
public record FabricReport(Fabric fabric, Topology topology, List<FabricFinding> findings) {
    public boolean hasErrors() {
        return findings.stream().anyMatch(f -> f.severity() == FabricFinding.Severity.error);
    }

    public Map<String, Object> json() {
        Map<String, Object> json = new LinkedHashMap<>();
        // a large fabric has thousands of switches and hosts: their maps are made in parallel, in order
        json.put("switches", topology.switches().parallelStream().map(s -> map("guid", s.guid().toString(), "name", s.name(), "tier", s.tier(),
                "role", s.role().name(), "ports", s.ports(), "description", s.description())).toList());
        json.put("hosts", topology.hosts().parallelStream().map(h -> map("host", h.host(), "node", h.node(),
                "hcas", h.hcas().stream().map(hca -> map("name", hca.name(), "guid", hca.guid().toString(), "lid", hca.lid(), "leaf", hca.leaf()))
                        .toList(),
                "leaves", h.leaves(), "group", h.group())).toList());
        json.put("groups", topology.groups().stream().map(g -> map("name", g.name(), "leaves", g.leaves(), "hosts", g.hosts(),
                "railOptimized", g.railOptimized(), "spineGroup", g.spineGroup())).toList());
        json.put("spineGroups", topology.spineGroups().stream().map(g -> map("name", g.name(), "spines", g.spines())).toList());
        FabricShape shape = FabricShape.of(topology);
        json.put("shape", map("name", shape.kind().label(), "tiers", shape.tiers(), "evidence", shape.evidence()));
        json.put("findings", findings.stream().map(f -> map("id", f.id(), "severity", f.severity().name(), "summary", f.summary(),
                "evidence", f.evidence(), "remedy", f.remedy())).toList());
        return json;
    }

    public String text() {
        StringBuilder text = new StringBuilder();
        Map<Topology.Role, List<Topology.Switch>> byRole = topology.switches().stream()
                .collect(Collectors.groupingBy(Topology.Switch::role, LinkedHashMap::new, Collectors.toList()));
        text.append("railyard fabric: ").append(topology.switches().size()).append(topology.switches().size() == 1 ? " switch (" : " switches (")
                .append(byRole.entrySet().stream().map(e -> e.getValue().size() + " " + e.getKey()).collect(Collectors.joining(", ")))
                .append("), ").append(fabric.cas().size()).append(" HCAs on ").append(topology.hosts().size()).append(" hosts, ")
                .append(fabric.cables().size()).append(" links\n\n");
        FabricShape shape = FabricShape.of(topology);
        text.append("  shape ").append(shape.kind().label()).append(", ").append(shape.tiers()).append(shape.tiers() == 1 ? " tier: " : " tiers: ")
                .append(shape.evidence()).append("\n\n");
        byRole.entrySet().stream().toList().reversed().forEach(e -> text.append(String.format("  %-6s", e.getKey()))
                .append(some(e.getValue().stream().map(Topology.Switch::name).toList())).append('\n'));
        text.append('\n');
        for (Topology.Group group : topology.groups()) {
            text.append("  ").append(group.name());
            if (group.railOptimized()) {
                text.append(" (rails on ").append(String.join(", ", group.leaves())).append(')');
            }
            if (group.spineGroup() != null) {
                text.append(" under ").append(group.spineGroup());
            }
            text.append(": ").append(some(group.hosts())).append('\n');
        }
        text.append('\n');
        for (FabricFinding finding : findings) {
            text.append(finding.severity() == FabricFinding.Severity.error ? "❌ " : "⚠️ ").append(finding.id()).append(": ")
                    .append(finding.summary()).append('\n').append("      ").append(finding.evidence()).append('\n')
                    .append("      -> ").append(finding.remedy()).append('\n');
        }
        long errors = findings.stream().filter(f -> f.severity() == FabricFinding.Severity.error).count();
        text.append(findings.isEmpty() ? "OK: no findings" : (errors > 0 ? "FAILED: " : "OK with warnings: ") + errors + " errors, "
                + (findings.size() - errors) + " warnings").append('\n');
        return text.toString();
    }

    /** The first names of a long list and how many more there are: the JSON output has them all. */
    private static String some(List<String> names) {
        int shown = 16;
        return names.size() <= shown ? String.join(" ", names)
                : String.join(" ", names.subList(0, shown)) + " ... (" + (names.size() - shown) + " more)";
    }

    /** A map in the order given, keeping nulls out. */
    private static Map<String, Object> map(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            if (keysAndValues[i + 1] != null) {
                map.put((String) keysAndValues[i], keysAndValues[i + 1]);
            }
        }
        return map;
    }
}
