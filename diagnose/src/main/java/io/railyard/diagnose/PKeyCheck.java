package io.railyard.diagnose;

import io.railyard.node.PKey;
import io.railyard.node.Port;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The ports' partition key tables, InfiniBand and RoCE alike (RoCE carries the P_Key in every packet's header too):
 * which partitions each port is in, as full or limited member, whether the ports share one beyond the default (two
 * limited members cannot talk; ports in no common partition cannot be one job's rails), and which port is in other
 * partitions than its peers. NCCL uses index 0 unless NCCL_IB_PKEY names another.
 */
final class PKeyCheck {
    static final String ID = "pkey";

    static CheckResult run(DoctorInput input) {
        List<Port> keyed = input.node().ports().stream().filter(port -> port.isInfiniBand() || port.isRoce())
                .filter(port -> !port.pkeys().isEmpty()).toList();
        if (keyed.isEmpty()) {
            return CheckResult.skipNoPorts(ID, input, "no InfiniBand or RoCE port shows a P_Key table");
        }
        String ports = kind(keyed) + " ports";
        List<String> details = new ArrayList<>();
        List<String> limitedOnly = new ArrayList<>();
        Map<Set<Integer>, List<String>> byPartitions = new LinkedHashMap<>();
        for (Port port : keyed) {
            details.add(port.id() + ": " + port.pkeys().stream().map(key -> key.hex() + " at " + key.index() + (key.fullMember() ? " (full)" : " (limited)"))
                    .collect(Collectors.joining(", ")));
            if (port.pkeys().stream().noneMatch(PKey::fullMember)) {
                limitedOnly.add(port.id());
            }
            byPartitions.computeIfAbsent(partitions(port), p -> new ArrayList<>()).add(port.id());
        }
        String nccl = input.environment().get("NCCL_IB_PKEY");
        if (nccl != null) {
            details.add("NCCL_IB_PKEY=" + nccl + ": the index of the key NCCL uses on every port");
        }
        Set<Integer> shared = new LinkedHashSet<>(partitions(keyed.getFirst()));
        keyed.forEach(port -> shared.retainAll(partitions(port)));
        Set<Integer> usual = byPartitions.entrySet().stream().max((a, b) -> a.getValue().size() - b.getValue().size()).orElseThrow().getKey();
        String odd = byPartitions.size() == 1 ? "" : keyed.stream().filter(port -> !partitions(port).equals(usual))
                .map(port -> port.id() + " in " + hex(partitions(port))).collect(Collectors.joining(", ")) + ", its peers in " + hex(usual);
        String remedy = "give every port of a job the same partitions (InfiniBand: the subnet manager's partitions.conf; RoCE: the NIC's"
                + " P_Key configuration)";
        if (shared.isEmpty()) {
            return new CheckResult(ID, CheckStatus.WARN, "the " + ports + " share no partition: one job cannot use them together ("
                    + odd + ")", details, remedy);
        }
        if (!limitedOnly.isEmpty()) {
            return new CheckResult(ID, CheckStatus.WARN, String.join(", ", limitedOnly) + " are limited members of every partition they are in:"
                    + " they reach full members only, never each other", details, "make them full members (0x8000 bit) in partitions.conf");
        }
        if (!odd.isEmpty()) {
            return new CheckResult(ID, CheckStatus.WARN, "a port's partitions differ from its peers': " + odd
                    + "; a job's pkey outside " + hex(shared) + " cannot use them all", details, remedy);
        }
        return CheckResult.ok(ID, keyed.size() + " " + ports + " in partition" + (shared.size() == 1 ? " " : "s ") + hex(shared), details);
    }

    private static Set<Integer> partitions(Port port) {
        return port.pkeys().stream().map(PKey::partition).collect(Collectors.toCollection(LinkedHashSet::new));
    }

    private static String hex(Set<Integer> partitions) {
        return partitions.stream().map(p -> String.format("0x%04x", p)).collect(Collectors.joining(", "));
    }

    private static String kind(List<Port> ports) {
        boolean ib = ports.stream().anyMatch(Port::isInfiniBand);
        boolean roce = ports.stream().anyMatch(Port::isRoce);
        return ib && roce ? "InfiniBand and RoCE" : ib ? "InfiniBand" : "RoCE";
    }
}
