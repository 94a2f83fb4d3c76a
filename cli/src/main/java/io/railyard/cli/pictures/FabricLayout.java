package io.railyard.cli.pictures;

import io.railyard.fabric.Cable;
import io.railyard.fabric.FabricFinding;
import io.railyard.fabric.FabricReport;
import io.railyard.fabric.Guid;
import io.railyard.fabric.Topology;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where the fabric's picture puts things: one row per switch tier (the highest on top), the hosts below, boxes left
 * to right, and each cable on the boxes of its two ends. A tier with many switches is drawn as groups of them (a
 * rail group's leaves, a spine group, else even runs) and many hosts as one box per host group, so that a
 * 2,000-host fabric stays a picture; each finding lands on the cable between its ends' boxes, else on its box.
 */
public final class FabricLayout {
    /** A tier with more switches than this is drawn as groups of them. */
    public static final int MAX_BOXES_IN_A_ROW = 40;
    /** The most group boxes in a row: few enough to read on one screen. */
    public static final int MAX_GROUPS_IN_A_ROW = 16;
    public static final int MAX_HOSTS_DRAWN = 128;
    static final double LEFT = 84, TOP = 64, SWITCH_W = 116, SWITCH_H = 36, HOST_W = 96, HOST_H = 26, GAP = 12, ROW_GAP = 110;

    enum Kind { SWITCH, SWITCHES, HOST, HOSTS }

    /** One drawn box: a switch or a host, or a group of them with its members. */
    static final class Box {
        final String name;
        final Kind kind;
        final String row;
        final List<String> members;
        /** A single switch's GUID, which tells it apart where its name is cut or says only its make; null for others. */
        String guid;
        final List<FabricFinding> findings = new ArrayList<>();
        final Set<String> faultyMembers = new TreeSet<>();
        double x;
        double y;
        double w;
        double h;

        Box(String name, Kind kind, String row, List<String> members) {
            this.name = name;
            this.kind = kind;
            this.row = row;
            this.members = members;
        }
    }

    /** The cables between two boxes, with the findings on them. */
    static final class Link {
        final Box a;
        final Box b;
        int cables;
        final List<FabricFinding> findings = new ArrayList<>();

        Link(Box a, Box b) {
            this.a = a;
            this.b = b;
        }
    }

    /** A frame around the hosts of one host group, drawn when its hosts are drawn one by one. */
    record Frame(String name, double x, double y, double w, double h) {}

    final List<String> rowNames = new ArrayList<>();
    final List<List<Box>> rows = new ArrayList<>();
    final List<Frame> frames = new ArrayList<>();
    final Map<List<Box>, Link> links = new LinkedHashMap<>(); // by upper and lower box, which compare as themselves
    final List<FabricFinding> unplaced = new ArrayList<>();
    double width;
    double height;
    private final Map<Guid, Box> byNode = new HashMap<>();
    private final Map<Guid, String> memberOfNode = new HashMap<>();
    private final Map<String, Box> byHost = new HashMap<>();
    private final Map<String, List<Box>> hostBoxesByGroup = new LinkedHashMap<>(); // when hosts are drawn one by one

    static FabricLayout of(FabricReport report) {
        FabricLayout layout = new FabricLayout();
        layout.switchRows(report.topology());
        layout.hostRow(report.topology());
        layout.place();
        report.fabric().cables().forEach(layout::cable);
        report.findings().forEach(layout::finding);
        return layout;
    }

    private void switchRows(Topology topology) {
        Map<Integer, List<Topology.Switch>> tiers = new HashMap<>();
        topology.switches().forEach(sw -> tiers.computeIfAbsent(sw.tier(), t -> new ArrayList<>()).add(sw));
        for (int tier : tiers.keySet().stream().sorted(Comparator.reverseOrder()).toList()) {
            List<Topology.Switch> switches = tiers.get(tier);
            String row = switches.getFirst().role().name();
            Map<String, Topology.Switch> byName = new HashMap<>();
            switches.forEach(sw -> byName.put(sw.name(), sw));
            List<List<String>> clusters = clusters(topology, switches.getFirst().role(), switches.stream().map(Topology.Switch::name).sorted().toList());
            List<Box> boxes = new ArrayList<>();
            boolean single = switches.size() <= MAX_BOXES_IN_A_ROW;
            for (List<String> cluster : single ? cluster(clusters) : merged(clusters)) {
                Box box = single ? new Box(cluster.getFirst(), Kind.SWITCH, row, cluster)
                        : new Box(range(cluster) + " (" + cluster.size() + ")", Kind.SWITCHES, row, cluster);
                if (single) {
                    box.guid = byName.get(cluster.getFirst()).guid().toString();
                }
                cluster.forEach(name -> {
                    byNode.put(byName.get(name).guid(), box);
                    memberOfNode.put(byName.get(name).guid(), name);
                });
                boxes.add(box);
            }
            rowNames.add(row);
            rows.add(boxes);
        }
    }

    /** The switches of a tier in their natural groups: leaves by rail group, spines by spine group, others alone. */
    private static List<List<String>> clusters(Topology topology, Topology.Role role, List<String> names) {
        List<List<String>> clusters = new ArrayList<>();
        Set<String> left = new TreeSet<>(names);
        if (role == Topology.Role.leaf) {
            topology.groups().forEach(group -> add(clusters, left, group.leaves()));
        } else if (role == Topology.Role.spine) {
            topology.spineGroups().forEach(group -> add(clusters, left, group.spines()));
        }
        left.forEach(name -> clusters.add(List.of(name)));
        return clusters;
    }

    private static void add(List<List<String>> clusters, Set<String> left, List<String> names) {
        List<String> cluster = names.stream().filter(left::remove).sorted().toList();
        if (!cluster.isEmpty()) {
            clusters.add(cluster);
        }
    }

    /** Each switch on its own, in cluster order (a rail group's leaves side by side). */
    private static List<List<String>> cluster(List<List<String>> clusters) {
        return clusters.stream().flatMap(List::stream).map(List::of).toList();
    }

    /** At most {@link #MAX_GROUPS_IN_A_ROW} boxes: the clusters as they are when few enough, else even runs of them. */
    private static List<List<String>> merged(List<List<String>> clusters) {
        if (clusters.size() <= MAX_GROUPS_IN_A_ROW && clusters.size() > 1) {
            return clusters;
        }
        List<String> all = clusters.stream().flatMap(List::stream).toList();
        int boxes = Math.min(MAX_GROUPS_IN_A_ROW, Math.max(1, (all.size() + 24) / 25));
        List<List<String>> runs = new ArrayList<>();
        for (int i = 0; i < boxes; i++) {
            runs.add(all.subList(i * all.size() / boxes, (i + 1) * all.size() / boxes));
        }
        return runs;
    }

    private static String range(List<String> names) {
        return names.size() == 1 ? names.getFirst() : names.getFirst() + " … " + names.getLast();
    }

    private void hostRow(Topology topology) {
        if (topology.hosts().isEmpty()) {
            return;
        }
        Map<String, List<Topology.Host>> byGroup = new LinkedHashMap<>();
        topology.groups().forEach(group -> byGroup.put(group.name(), new ArrayList<>()));
        topology.hosts().forEach(host -> byGroup.computeIfAbsent(host.group() == null ? "other hosts" : host.group(), g -> new ArrayList<>()).add(host));
        byGroup.values().removeIf(List::isEmpty);
        boolean single = topology.hosts().size() <= MAX_HOSTS_DRAWN;
        List<List<Topology.Host>> boxesOfHosts = new ArrayList<>();
        List<String> names = new ArrayList<>();
        if (single) {
            byGroup.forEach((group, hosts) -> hosts.forEach(host -> {
                boxesOfHosts.add(List.of(host));
                names.add(group);
            }));
        } else if (byGroup.size() <= MAX_GROUPS_IN_A_ROW) {
            byGroup.forEach((group, hosts) -> {
                boxesOfHosts.add(hosts);
                names.add(group);
            });
        } else {
            List<List<Topology.Host>> groups = List.copyOf(byGroup.values());
            for (int i = 0; i < MAX_GROUPS_IN_A_ROW; i++) {
                List<List<Topology.Host>> run = groups.subList(i * groups.size() / MAX_GROUPS_IN_A_ROW, (i + 1) * groups.size() / MAX_GROUPS_IN_A_ROW);
                boxesOfHosts.add(run.stream().flatMap(List::stream).toList());
                names.add(run.getFirst().getFirst().group() + " … " + run.getLast().getFirst().group());
            }
        }
        List<Box> boxes = new ArrayList<>();
        for (int i = 0; i < boxesOfHosts.size(); i++) {
            List<Topology.Host> hosts = boxesOfHosts.get(i);
            Box box = single ? new Box(hosts.getFirst().host(), Kind.HOST, "hosts", List.of(hosts.getFirst().host()))
                    : new Box(names.get(i) + " (" + hosts.size() + " hosts)", Kind.HOSTS, "hosts", hosts.stream().map(Topology.Host::host).toList());
            for (Topology.Host host : hosts) {
                byHost.put(host.host(), box);
                host.hcas().forEach(hca -> {
                    byNode.put(hca.guid(), box);
                    memberOfNode.put(hca.guid(), host.host());
                });
            }
            if (single) {
                hostBoxesByGroup.computeIfAbsent(names.get(i), g -> new ArrayList<>()).add(box);
            }
            boxes.add(box);
        }
        rowNames.add("hosts");
        rows.add(boxes);
    }

    private void place() {
        double widest = 0;
        for (List<Box> row : rows) {
            double w = 0;
            for (Box box : row) {
                box.w = box.kind == Kind.HOST ? HOST_W : box.kind == Kind.HOSTS ? SWITCH_W + 40 : box.kind == Kind.SWITCHES ? SWITCH_W + 24 : SWITCH_W;
                box.h = box.kind == Kind.HOST ? HOST_H : SWITCH_H + (box.kind == Kind.SWITCH ? 0 : 14);
                w += box.w + GAP;
            }
            widest = Math.max(widest, w - GAP);
        }
        width = LEFT + widest + 2 * GAP;
        for (int r = 0; r < rows.size(); r++) {
            List<Box> row = rows.get(r);
            double used = row.stream().mapToDouble(b -> b.w + GAP).sum() - GAP;
            double x = LEFT + (widest - used) / 2;
            double y = TOP + r * (SWITCH_H + ROW_GAP);
            for (Box box : row) {
                box.x = x;
                box.y = y;
                x += box.w + GAP;
            }
        }
        height = rows.isEmpty() ? TOP : rows.getLast().getFirst().y + SWITCH_H + 40;
        hostBoxesByGroup.forEach((group, hosts) -> {
            double x0 = hosts.getFirst().x - 4;
            double x1 = hosts.getLast().x + hosts.getLast().w + 4;
            frames.add(new Frame(group, x0, hosts.getFirst().y - 4, x1 - x0, HOST_H + 24));
        });
    }

    private void cable(Cable cable) {
        Box a = byNode.get(cable.a().node());
        Box b = byNode.get(cable.b().node());
        if (a == null || b == null || a == b) {
            return;
        }
        link(a, b).cables++;
    }

    /** The link between two placed boxes, the upper one first. */
    private Link link(Box a, Box b) {
        Box upper = a.y <= b.y ? a : b;
        Box lower = upper == a ? b : a;
        return links.computeIfAbsent(List.of(upper, lower), k -> new Link(upper, lower));
    }

    private void finding(FabricFinding finding) {
        if (finding.host() != null && byHost.containsKey(finding.host())) {
            Box box = byHost.get(finding.host());
            box.findings.add(finding);
            box.faultyMembers.add(finding.host());
            return;
        }
        List<Box> boxes = finding.at().stream().map(end -> byNode.get(end.node())).toList();
        finding.at().forEach(end -> {
            Box box = byNode.get(end.node());
            if (box != null) {
                box.faultyMembers.add(memberOfNode.get(end.node()));
            }
        });
        if (boxes.size() == 2 && boxes.get(0) != null && boxes.get(1) != null && boxes.get(0) != boxes.get(1)) {
            link(boxes.get(0), boxes.get(1)).findings.add(finding);
            boxes.stream().filter(box -> box.kind == Kind.SWITCHES || box.kind == Kind.HOSTS).forEach(box -> box.findings.add(finding));
        } else if (!boxes.isEmpty() && boxes.getFirst() != null) {
            boxes.getFirst().findings.add(finding);
        } else {
            unplaced.add(finding);
        }
    }
}
