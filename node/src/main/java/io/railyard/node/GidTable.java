package io.railyard.node;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/** A port's GID table, zero entries left out. */
public record GidTable(List<Gid> entries) {
    public GidTable {
        entries = List.copyOf(entries);
    }

    public Optional<Gid> at(int index) {
        return entries.stream().filter(gid -> gid.index() == index).findFirst();
    }

    /** The index NCCL should use on a RoCE port: the first RoCE v2 entry with an IPv4-mapped address. */
    public OptionalInt roceV2Ipv4Index() {
        return entries.stream()
                .filter(gid -> gid.isRoceV2() && gid.isIpv4())
                .mapToInt(Gid::index)
                .findFirst();
    }
}
