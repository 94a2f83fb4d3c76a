package io.railyard.node;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads network interfaces from {@code /sys/class/net}. */
final class NetdevReader {
    private NetdevReader() {}

    static List<Netdev> readAll(Sysfs sysfs) {
        List<Netdev> netdevs = new ArrayList<>();
        for (String name : sysfs.list(sysfs.resolve("sys/class/net"))) {
            if (!name.equals("bonding_masters")) {
                netdevs.add(read(sysfs, name));
            }
        }
        return netdevs;
    }

    static Netdev read(Sysfs sysfs, String name) {
        Path dir = sysfs.resolve("sys/class/net").resolve(name);
        return new Netdev(
                name,
                sysfs.readInt(dir.resolve("mtu")),
                sysfs.read(dir.resolve("operstate")),
                sysfs.realPath(dir.resolve("device")).map(real -> real.getFileName().toString()));
    }
}
