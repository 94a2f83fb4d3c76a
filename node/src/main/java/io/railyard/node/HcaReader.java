package io.railyard.node;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Reads the RDMA devices under {@code /sys/class/infiniband}, their ports, GID tables and character devices. */
final class HcaReader {
    private final Sysfs sysfs;
    private final PciReader pciReader;
    private final Map<String, Netdev> netdevsByName;
    private final Map<String, List<CharDevice>> charDevicesByHca;

    HcaReader(Sysfs sysfs, PciReader pciReader, List<Netdev> netdevs) {
        this.sysfs = sysfs;
        this.pciReader = pciReader;
        this.netdevsByName = new HashMap<>();
        netdevs.forEach(netdev -> netdevsByName.put(netdev.name(), netdev));
        this.charDevicesByHca = readCharDevices();
    }

    List<Hca> readAll() {
        Path classDir = sysfs.resolve("sys/class/infiniband");
        List<Hca> hcas = new ArrayList<>();
        for (String name : sysfs.list(classDir)) {
            hcas.add(read(name, classDir.resolve(name)));
        }
        return hcas;
    }

    private Hca read(String name, Path dir) {
        Attr<PciDevice> pci = pciReader.read(dir.resolve("device"));
        List<Port> ports = new ArrayList<>();
        for (String port : sysfs.list(dir.resolve("ports"))) {
            if (port.chars().allMatch(Character::isDigit)) {
                ports.add(readPort(name, Integer.parseInt(port), dir.resolve("ports").resolve(port), dir));
            }
        }
        return new Hca(
                name,
                sysfs.read(dir.resolve("node_type")),
                sysfs.read(dir.resolve("node_guid")),
                sysfs.read(dir.resolve("sys_image_guid")),
                sysfs.read(dir.resolve("fw_ver")),
                sysfs.read(dir.resolve("hca_type")),
                sysfs.read(dir.resolve("board_id")),
                pci,
                ports,
                charDevicesByHca.getOrDefault(name, List.of()));
    }

    private Port readPort(String hca, int number, Path dir, Path hcaDir) {
        GidTable gids = GidReader.readAll(sysfs, dir);
        return new Port(
                hca,
                number,
                dir,
                sysfs.read(dir.resolve("state"), LinkState::parse),
                sysfs.read(dir.resolve("phys_state"), LinkState::parse),
                sysfs.read(dir.resolve("rate"), Rate::parse),
                sysfs.read(dir.resolve("link_layer"), LinkLayer::parse),
                sysfs.readInt(dir.resolve("lid")),
                sysfs.readInt(dir.resolve("sm_lid")),
                gids,
                netdevOf(number, gids, hcaDir.resolve("device")),
                sysfs.read(hcaDir.resolve("tc").resolve(String.valueOf(number)).resolve("traffic_class"), Port::parseTrafficClass),
                pkeys(dir.resolve("pkeys")));
    }

    /** The P_Key table's entries in use; a table of 128 entries is 128 small files, most of them 0x0000. */
    private List<PKey> pkeys(Path dir) {
        List<PKey> keys = new ArrayList<>();
        for (String index : sysfs.list(dir)) {
            if (index.chars().allMatch(Character::isDigit)) {
                int value = sysfs.read(dir.resolve(index), text -> Integer.decode(text.strip())).orElse(0);
                if ((value & 0x7fff) != 0) {
                    keys.add(new PKey(Integer.parseInt(index), value));
                }
            }
        }
        keys.sort(java.util.Comparator.comparingInt(PKey::index));
        return keys;
    }

    private Attr<Netdev> netdevOf(int port, GidTable gids, Path pciDevice) {
        Optional<String> fromGids = gids.entries().stream()
                .map(gid -> gid.netdev().orElse(""))
                .filter(name -> !name.isEmpty())
                .findFirst();
        return NetdevReader.nameForPort(sysfs, port, fromGids, pciDevice).map(this::netdev);
    }

    private Netdev netdev(String name) {
        return netdevsByName.computeIfAbsent(name, n -> NetdevReader.read(sysfs, n));
    }

    private Map<String, List<CharDevice>> readCharDevices() {
        Map<String, List<CharDevice>> byHca = new HashMap<>();
        addCharDevices(byHca, "sys/class/infiniband_verbs", "uverbs", CharDevice.Kind.UVERBS);
        addCharDevices(byHca, "sys/class/infiniband_mad", "umad", CharDevice.Kind.UMAD);
        addCharDevices(byHca, "sys/class/infiniband_mad", "issm", CharDevice.Kind.ISSM);
        return byHca;
    }

    private void addCharDevices(Map<String, List<CharDevice>> byHca, String classDir, String prefix, CharDevice.Kind kind) {
        Path dir = sysfs.resolve(classDir);
        for (String name : sysfs.list(dir)) {
            if (!name.startsWith(prefix) || !name.substring(prefix.length()).chars().allMatch(Character::isDigit)) {
                continue; // e.g. abi_version
            }
            Attr<String> hca = sysfs.read(dir.resolve(name).resolve("ibdev"));
            if (!hca.isKnown()) {
                continue;
            }
            int port = kind == CharDevice.Kind.UVERBS ? 0 : sysfs.readInt(dir.resolve(name).resolve("port")).orElse(0);
            boolean present = sysfs.exists(sysfs.resolve("dev/infiniband").resolve(name));
            byHca.computeIfAbsent(hca.orElse(""), k -> new ArrayList<>()).add(new CharDevice(kind, name, port, present));
        }
    }
}
