package io.railyard.node;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reads a port's GID table from {@code gids/<i>}, {@code gid_attrs/types/<i>} and {@code gid_attrs/ndevs/<i>}. */
public final class GidReader {
    private static final String ZERO_GID = "0000:0000:0000:0000:0000:0000:0000:0000";

    private GidReader() {}

    /** Every non-zero entry. */
    public static GidTable readAll(Sysfs sysfs, Path portDir) {
        List<Gid> gids = new ArrayList<>();
        for (int index = 0; sysfs.exists(portDir.resolve("gids").resolve(String.valueOf(index))); index++) {
            entry(sysfs, portDir, index).ifPresent(gids::add);
        }
        return new GidTable(gids);
    }

    /** The first RoCE v2 IPv4 entry, reading no further than it (a RoCE port has up to 256 entries; this one is usually the 4th). */
    public static Optional<Gid> firstRoceV2Ipv4(Sysfs sysfs, Path portDir) {
        for (int index = 0; sysfs.exists(portDir.resolve("gids").resolve(String.valueOf(index))); index++) {
            Optional<Gid> gid = entry(sysfs, portDir, index).filter(g -> g.isIpv4() && g.isRoceV2());
            if (gid.isPresent()) {
                return gid;
            }
        }
        return Optional.empty();
    }

    private static Optional<Gid> entry(Sysfs sysfs, Path portDir, int index) {
        String name = String.valueOf(index);
        Attr<String> address = sysfs.read(portDir.resolve("gids").resolve(name));
        // Reading the type or netdev of an empty entry fails (EINVAL on a real host): read them only for used entries.
        if (!address.isKnown() || address.orElse(ZERO_GID).equals(ZERO_GID)) {
            return Optional.empty();
        }
        return Optional.of(new Gid(
                index,
                address.orElseThrow(),
                sysfs.read(portDir.resolve("gid_attrs/types").resolve(name), GidType::parse),
                sysfs.read(portDir.resolve("gid_attrs/ndevs").resolve(name)).flatMap(GidReader::nonEmpty)));
    }

    private static Attr<String> nonEmpty(String text) {
        return text.isEmpty() ? Attr.unknown("empty") : Attr.of(text);
    }
}
