package io.railyard.node;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reads network interfaces from {@code /sys/class/net}, and finds the one an HCA port belongs to. */
public final class NetdevReader {
    private NetdevReader() {}

    /**
     * The netdev of an HCA port: the one its GID table names (RoCE), else the PCI function's netdev for this port
     * ({@code <device>/net/}; with several, the one whose {@code dev_port} counts this port from zero, as on mlx4).
     */
    public static Attr<String> nameForPort(Sysfs sysfs, int port, Optional<String> fromGids, Path pciDevice) {
        if (fromGids.isPresent()) {
            return Attr.of(fromGids.get());
        }
        Path netDir = pciDevice.resolve("net");
        List<String> candidates = sysfs.list(netDir);
        if (candidates.size() == 1) {
            return Attr.of(candidates.getFirst());
        }
        for (String name : candidates) {
            if (sysfs.readInt(netDir.resolve(name).resolve("dev_port")).is(p -> p == port - 1)) {
                return Attr.of(name);
            }
        }
        return Attr.unknown("no netdev for port " + port + " in the GID table or under " + sysfs.hostPath(netDir));
    }

    static List<Netdev> readAll(Sysfs sysfs) {
        List<Netdev> netdevs = new ArrayList<>();
        for (String name : sysfs.list(sysfs.resolve("sys/class/net"))) {
            if (!name.equals("bonding_masters")) {
                netdevs.add(read(sysfs, name));
            }
        }
        return netdevs;
    }

    public static Netdev read(Sysfs sysfs, String name) {
        Path dir = sysfs.resolve("sys/class/net").resolve(name);
        return new Netdev(
                name,
                sysfs.readInt(dir.resolve("mtu")),
                sysfs.read(dir.resolve("operstate")),
                sysfs.realPath(dir.resolve("device")).map(real -> real.getFileName().toString()));
    }
}
