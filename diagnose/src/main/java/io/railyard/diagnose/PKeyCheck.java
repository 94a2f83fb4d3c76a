package io.railyard.diagnose;

import io.railyard.node.PKey;
import io.railyard.node.Port;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The InfiniBand ports' partition key tables: which partitions each port is in, as full or limited member, and
 * whether the ports share one beyond the default (two limited members cannot talk; ports in no common partition
 * cannot be one job's rails). NCCL uses index 0 unless NCCL_IB_PKEY names another.
 */
final class PKeyCheck {
    static final String ID = "pkey";

    static CheckResult run(DoctorInput input) {
        List<Port> ib = input.node().ports().stream().filter(Port::isInfiniBand).filter(port -> !port.pkeys().isEmpty()).toList();
        if (ib.isEmpty()) {
            return CheckResult.skipNoPorts(ID, input, "no InfiniBand port shows a P_Key table");
        }
        List<String> details = new ArrayList<>();
        List<String> limitedOnly = new ArrayList<>();
        Set<Integer> shared = null;
        for (Port port : ib) {
            details.add(port.id() + ": " + port.pkeys().stream().map(key -> key.hex() + " at " + key.index() + (key.fullMember() ? " (full)" : " (limited)"))
                    .collect(Collectors.joining(", ")));
            if (port.pkeys().stream().noneMatch(PKey::fullMember)) {
                limitedOnly.add(port.id());
            }
            Set<Integer> partitions = port.pkeys().stream().map(PKey::partition).collect(Collectors.toCollection(LinkedHashSet::new));
            if (shared == null) {
                shared = partitions;
            } else {
                shared.retainAll(partitions);
            }
        }
        String nccl = input.environment().get("NCCL_IB_PKEY");
        if (nccl != null) {
            details.add("NCCL_IB_PKEY=" + nccl + ": the index of the key NCCL uses on every port");
        }
        if (shared.isEmpty()) {
            return new CheckResult(ID, CheckStatus.WARN, "the InfiniBand ports share no partition: one job cannot use them together",
                    details, "put every port of a job in one partition in the subnet manager's partitions.conf");
        }
        if (!limitedOnly.isEmpty()) {
            return new CheckResult(ID, CheckStatus.WARN, String.join(", ", limitedOnly) + " are limited members of every partition they are in:"
                    + " they reach full members only, never each other", details, "make them full members (0x8000 bit) in partitions.conf");
        }
        return CheckResult.ok(ID, ib.size() + " InfiniBand ports in partition" + (shared.size() == 1 ? " " : "s ")
                + shared.stream().map(p -> String.format("0x%04x", p)).collect(Collectors.joining(", ")), details);
    }
}
