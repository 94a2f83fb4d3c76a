package io.railyard.diagnose;

import io.railyard.node.Gid;
import io.railyard.node.Port;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/** Each RoCE port has a RoCE v2 GID with an IPv4 address, and the index NCCL should use is reported. */
final class GidCheck {
    static final String ID = "gid";

    static CheckResult run(DoctorInput input) {
        List<Port> roce = input.node().ports().stream().filter(Port::isRoce).toList();
        if (roce.isEmpty()) {
            return CheckResult.skipNoPorts(ID, input, "no RoCE ports: InfiniBand addresses by LID and NCCL's default GID index 0 is right");
        }
        List<String> details = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        List<Integer> indexes = new ArrayList<>();
        for (Port port : roce) {
            OptionalInt index = port.ncclGidIndex();
            if (index.isPresent()) {
                Gid gid = port.gids().at(index.getAsInt()).orElseThrow();
                indexes.add(index.getAsInt());
                details.add(port.id() + ": GID index " + index.getAsInt() + " " + gid.displayAddress() + " RoCE v2"
                        + gid.netdev().map(n -> " on " + n).orElse(""));
            } else {
                String seen = port.gids().entries().stream()
                        .map(g -> g.index() + "=" + g.displayAddress() + " " + g.type().map(Object::toString).orElse("(type unknown)"))
                        .collect(Collectors.joining(", "));
                missing.add(port.id());
                details.add(port.id() + ": no RoCE v2 IPv4 GID; table: " + (seen.isEmpty() ? "empty" : seen));
            }
        }
        if (!missing.isEmpty()) {
            return new CheckResult(ID, CheckStatus.FAIL, "no RoCE v2 IPv4 GID on " + String.join(", ", missing), details,
                    "give each RoCE netdev an IPv4 address (the GID table follows the netdev's addresses); a link-local "
                            + "fe80:: GID cannot be routed and makes NCCL time out with error 12");
        }
        if (indexes.stream().distinct().count() > 1) {
            return new CheckResult(ID, CheckStatus.WARN, "RoCE v2 IPv4 GID index differs between ports: "
                    + indexes.stream().map(String::valueOf).collect(Collectors.joining(", ")), details,
                    "do not set one NCCL_IB_GID_INDEX for all ports: leave it unset with NCCL >= 2.21 "
                            + "(NCCL_IB_ROCE_VERSION_NUM=2, NCCL_IB_ADDR_FAMILY=AF_INET) or let the device plugin set it per pod");
        }
        return CheckResult.ok(ID, "RoCE v2 IPv4 GID at index " + indexes.getFirst() + " on every port: NCCL_IB_GID_INDEX="
                + indexes.getFirst(), details);
    }
}
