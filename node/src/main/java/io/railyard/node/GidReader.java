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
        GidDirectories dirs = new GidDirectories(sysfs, portDir);
        for (int index = 0; ; index++) {
            Attr<String> address = dirs.gids.read(String.valueOf(index));
            if (!address.isKnown()) {
                break; // the table's end
            }
            dirs.entry(index, address).ifPresent(gids::add);
        }
        return new GidTable(gids);
    }

    /** The first RoCE v2 IPv4 entry, reading no further than it (a RoCE port has up to 256 entries; this one is usually the 4th). */
    public static Optional<Gid> firstRoceV2Ipv4(Sysfs sysfs, Path portDir) {
        GidDirectories dirs = new GidDirectories(sysfs, portDir);
        for (int index = 0; ; index++) {
            Attr<String> address = dirs.gids.read(String.valueOf(index));
            if (!address.isKnown()) {
                return Optional.empty();
            }
            if (!Gid.isIpv4(address.orElseThrow())) {
                continue; // its type and netdev are not read: a scrape does this for every port
            }
            Optional<Gid> gid = dirs.entry(index, address).filter(Gid::isRoceV2);
            if (gid.isPresent()) {
                return gid;
            }
        }
    }

    /** The three directories of a GID table. */
    private static final class GidDirectories {
        final Sysfs.Directory gids;
        final Sysfs.Directory types;
        final Sysfs.Directory ndevs;

        GidDirectories(Sysfs sysfs, Path portDir) {
            gids = sysfs.directory(portDir.resolve("gids"));
            types = sysfs.directory(portDir.resolve("gid_attrs/types"));
            ndevs = sysfs.directory(portDir.resolve("gid_attrs/ndevs"));
        }

        Optional<Gid> entry(int index, Attr<String> address) {
            // Reading the type or netdev of an empty entry fails (EINVAL on a real host): read them only for used entries.
            if (address.orElse(ZERO_GID).equals(ZERO_GID)) {
                return Optional.empty();
            }
            String name = String.valueOf(index);
            return Optional.of(new Gid(index, address.orElseThrow(), types.read(name, GidType::parse),
                    ndevs.read(name).flatMap(GidReader::nonEmpty)));
        }
    }

    private static Attr<String> nonEmpty(String text) {
        return text.isEmpty() ? Attr.unknown("empty") : Attr.of(text);
    }
}
