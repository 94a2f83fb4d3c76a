package io.railyard.fabric;

import io.railyard.fabric.FabricFinding.Severity;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/** What is broken in a fabric: missing HCAs, degraded links, uneven uplinks, ports down, error counters. */
public final class FabricHealth {
    private final Fabric fabric;
    private final Topology topology;
    private final Map<Guid, Topology.Switch> switches;
    private final List<FabricFinding> findings = new ArrayList<>();

    private FabricHealth(Fabric fabric, Topology topology) {
        this.fabric = fabric;
        this.topology = topology;
        this.switches = topology.switches().stream().collect(Collectors.toMap(Topology.Switch::guid, Function.identity()));
    }

    /**
     * The findings: errors first, then by id and summary.
     *
     * @param hcasPerHost how many HCAs each host should have; null to take the count most hosts have
     */
    public static List<FabricFinding> check(Fabric fabric, Topology topology, List<LinkState> links, List<PortErrors> errors,
            Integer hcasPerHost) {
        FabricHealth health = new FabricHealth(fabric, topology);
        health.missingHcas(hcasPerHost);
        health.degradedLinks();
        health.uplinkAsymmetry();
        health.portsDown(links);
        health.portErrors(errors);
        return health.findings.stream()
                .sorted(Comparator.comparing(FabricFinding::severity).thenComparing(FabricFinding::id).thenComparing(FabricFinding::summary)).toList();
    }

    private void missingHcas(Integer hcasPerHost) {
        if (topology.hosts().isEmpty()) {
            return;
        }
        int expected = hcasPerHost != null ? hcasPerHost : mostCommon(topology.hosts().stream().map(h -> h.hcas().size()).toList());
        Map<String, Long> devices = topology.hosts().stream().flatMap(h -> h.hcas().stream()).map(Topology.Hca::name)
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        for (Topology.Host host : topology.hosts()) {
            if (host.hcas().size() >= expected) {
                continue;
            }
            Set<String> present = host.hcas().stream().map(Topology.Hca::name).collect(Collectors.toSet());
            List<String> missing = devices.entrySet().stream().filter(e -> e.getValue() > topology.hosts().size() / 2)
                    .map(Map.Entry::getKey).filter(d -> !present.contains(d)).sorted().toList();
            String where = missing.stream().map(device -> device + leafOfPeers(host, device)).collect(Collectors.joining(", "));
            FabricNode first = fabric.node(host.hcas().getFirst().guid());
            findings.add(new FabricFinding("missing-hca", Severity.error,
                    host.host() + " has " + host.hcas().size() + " HCA" + (host.hcas().size() == 1 ? "" : "s") + " on the fabric ("
                            + host.hcas().stream().map(Topology.Hca::name).collect(Collectors.joining(", ")) + ") where "
                            + (hcasPerHost != null ? "--hcas-per-host says " : "its peers have ") + expected
                            + (where.isEmpty() ? "" : ": missing " + where),
                    first.evidence(),
                    "on " + host.host() + " run ibstat: a missing device is a driver or PCIe problem, a port Down/Polling is the cable,"
                            + " transceiver or leaf port; the job's ranks on this host lose one rail until it is back", List.of(), host.host()));
        }
    }

    /** Where the other hosts of this host's group have this device: the leaf port to look at. */
    private String leafOfPeers(Topology.Host host, String device) {
        return topology.hosts().stream().filter(h -> h != host && Objects.equals(h.group(), host.group()))
                .flatMap(h -> h.hcas().stream()).filter(h -> h.name().equals(device) && h.leaf() != null).map(Topology.Hca::leaf)
                .findFirst().map(leaf -> " (its peers' " + device + " are on " + leaf + ")").orElse("");
    }

    private void degradedLinks() {
        // counted by the strings, which are a few shared ones, then by what they mean
        Map<String, Integer> widths = new HashMap<>();
        Map<String, Integer> speeds = new HashMap<>();
        for (Cable cable : fabric.cables()) {
            widths.merge(cable.width(), 1, Integer::sum);
            speeds.merge(cable.speed(), 1, Integer::sum);
        }
        Map<Integer, Integer> byLanes = new HashMap<>();
        widths.forEach((width, count) -> {
            if (!width.isEmpty()) {
                byLanes.merge(lanes(width), count, Integer::sum);
            }
        });
        Map<Integer, Integer> byRank = new HashMap<>();
        speeds.forEach((name, count) -> {
            if (LaneSpeed.rank(name) >= 0) {
                byRank.merge(LaneSpeed.rank(name), count, Integer::sum);
            }
        });
        Integer usualLanes = mostCommon(byLanes);
        Integer usualSpeed = mostCommon(byRank);
        if (usualLanes == null || usualSpeed == null) {
            return;
        }
        String speed = LaneSpeed.nameOfRank(usualSpeed);
        for (Cable cable : fabric.cables()) {
            boolean narrow = !cable.width().isEmpty() && lanes(cable.width()) < usualLanes;
            int rank = LaneSpeed.rank(cable.speed());
            boolean slow = rank >= 0 && rank < usualSpeed;
            if (!narrow && !slow) {
                continue;
            }
            boolean aFirst = tier(cable.a()) <= tier(cable.b());
            findings.add(new FabricFinding("degraded-link", Severity.error,
                    "link " + describe(aFirst ? cable.a() : cable.b()) + " <-> " + describe(aFirst ? cable.b() : cable.a()) + " runs at "
                            + cable.rate() + " where the fabric's links run at " + usualLanes + "x" + speed,
                    cable.evidence(),
                    narrow ? "a link trained on fewer lanes: reseat or replace the cable or transceiver (a damaged lane drops the link to 1X);"
                            + " ibportstate on either end shows the widths enabled"
                            : "a link trained at a lower speed: check that the cable is rated for " + speed + ", the firmware of both ends and"
                            + " the speeds enabled on the ports (ibportstate)", List.of(cable.a(), cable.b()), null));
        }
    }

    private void uplinkAsymmetry() {
        Map<Integer, List<Topology.Switch>> byTier = topology.switches().stream().collect(Collectors.groupingBy(Topology.Switch::tier));
        for (List<Topology.Switch> tier : byTier.values()) {
            List<Long> uplinks = new ArrayList<>(tier.size()); // the i-th switch's uplinks
            for (Topology.Switch sw : tier) {
                long up = 0;
                for (Cable cable : fabric.cablesOf(sw.guid())) {
                    Topology.Switch peer = switches.get(cable.peerOf(sw.guid()).node());
                    up += peer != null && peer.tier() == sw.tier() + 1 ? 1 : 0;
                }
                uplinks.add(up);
            }
            if (uplinks.size() < 2 || uplinks.stream().allMatch(n -> n == 0)) {
                continue;
            }
            long expected = mostCommon(uplinks);
            for (int i = 0; i < tier.size(); i++) {
                Topology.Switch sw = tier.get(i);
                long count = uplinks.get(i);
                if (count < expected) {
                    findings.add(new FabricFinding("uplink-asymmetry", Severity.warning,
                            sw.name() + " has " + count + " uplinks where the other " + sw.role() + " switches have " + expected,
                            fabric.node(sw.guid()).evidence(),
                            "an uplink is missing or down: find its port (iblinkinfo shows it Down/Polling) and reseat or replace the cable;"
                                    + " until then the hosts under " + sw.name() + " share less bandwidth to the tier above",
                            List.of(new Cable.End(sw.guid(), 0)), null));
                }
            }
        }
    }

    /** A switch port down is a finding when most switches of its role use that port: unused ports are down too. */
    private void portsDown(List<LinkState> links) {
        Map<Topology.Role, List<Topology.Switch>> byRole = topology.switches().stream().collect(Collectors.groupingBy(Topology.Switch::role));
        for (LinkState link : links) {
            Topology.Switch sw = switches.get(link.guid());
            if (link.isUp() || sw == null) {
                continue;
            }
            List<Topology.Switch> peers = byRole.get(sw.role()).stream().filter(p -> p != sw).toList();
            long using = peers.stream().filter(p -> fabric.cablesOf(p.guid()).stream()
                    .anyMatch(c -> c.endOf(p.guid()).port() == link.port())).count();
            if (peers.isEmpty() || using * 2 < peers.size()) {
                continue;
            }
            findings.add(new FabricFinding("port-down", Severity.error,
                    sw.name() + " port " + link.port() + " is " + link.state() + "/" + link.physicalState() + "; port " + link.port()
                            + " is cabled on " + using + " of the other " + peers.size() + " " + sw.role() + " switches",
                    link.line(),
                    link.physicalState().equalsIgnoreCase("Disabled")
                            ? "the port was disabled: enable it (ibportstate <lid> <port> enable) once its link is known good"
                            : "the port sees no peer: check the cable and transceiver, and the far end (a host's HCA down or a switch port disabled)",
                    List.of(new Cable.End(sw.guid(), link.port())), null));
        }
    }

    private void portErrors(List<PortErrors> errors) {
        for (PortErrors port : errors) {
            Map<String, Long> beyond = port.counters().entrySet().stream().filter(e -> ErrorThresholds.beyond(e.getKey(), e.getValue()))
                    .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, LinkedHashMap::new));
            if (beyond.isEmpty()) {
                continue;
            }
            boolean integrity = beyond.keySet().stream().anyMatch(ErrorThresholds::linkIntegrity);
            FabricNode node = fabric.nodeOrPort(port.guid());
            String where = node == null ? port.description() + " port " + port.port() : describe(new Cable.End(node.guid(), port.port()));
            Cable.End peerEnd = node == null ? null : fabric.cablesOf(node.guid()).stream()
                    .filter(c -> c.touches(node.guid()) && c.endOf(node.guid()).port() == port.port()).findFirst().map(c -> c.peerOf(node.guid()))
                    .orElse(null);
            String peer = peerEnd == null ? "" : " (to " + describe(peerEnd) + ")";
            List<Cable.End> at = node == null ? List.of() : peerEnd == null ? List.of(new Cable.End(node.guid(), port.port()))
                    : List.of(new Cable.End(node.guid(), port.port()), peerEnd);
            findings.add(new FabricFinding("port-errors", integrity ? Severity.error : Severity.warning,
                    where + peer + ": " + beyond.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(", ")),
                    port.line(),
                    integrity ? "errors of the physical link: reseat or replace the cable or transceiver at either end, then clear the counters"
                            + " (ibqueryerrors -k) and check that they stay at zero"
                            : "discards and waits come from congestion or a stuck peer: look at the traffic through this port and at the node"
                            + " it leads to", at, null));
        }
    }

    /** {@code leaf-01 port 2} or {@code gpu-node-02 mlx5_0 port 1}. */
    private String describe(Cable.End end) {
        Topology.Switch sw = switches.get(end.node());
        FabricNode node = fabric.node(end.node());
        String name = sw != null ? sw.name() : node != null ? node.description() : end.node().toString();
        return name + " port " + end.port();
    }

    /** 0 for an HCA, else the switch's tier: links read from the host up. */
    private int tier(Cable.End end) {
        Topology.Switch sw = switches.get(end.node());
        return sw == null ? 0 : sw.tier();
    }

    /** The lanes of a width such as {@code 4X}: its digits. */
    private static int lanes(String width) {
        int lanes = 0;
        for (int i = 0; i < width.length(); i++) {
            char c = width.charAt(i);
            if (c >= '0' && c <= '9') {
                lanes = lanes * 10 + c - '0';
            }
        }
        return lanes;
    }

    /** The most common value; the larger one on a tie, so that a fabric half degraded still reads as degraded. */
    private static <T extends Comparable<T>> T mostCommon(Collection<T> values) {
        Map<T, Integer> counts = new HashMap<>();
        for (T value : values) {
            counts.merge(value, 1, Integer::sum);
        }
        return mostCommon(counts);
    }

    /** The value counted most; the larger one on a tie. */
    private static <T extends Comparable<T>> T mostCommon(Map<T, Integer> counts) {
        return counts.entrySet().stream().max(Map.Entry.<T, Integer>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
                .map(Map.Entry::getKey).orElse(null);
    }

}
