package io.railyard.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Writes a host's {@code sys}, {@code proc} and {@code dev} under a root in the kernel's layout: class entries are
 * relative symlinks into {@code /sys/devices/pci…}, as on a real machine. Character devices are plain files.
 */
public final class HostTree {
    private final Path root;
    private final Map<String, String> hcaDirs = new HashMap<>();

    private HostTree(Path root) {
        this.root = root;
    }

    public static HostTree at(Path root) {
        return new HostTree(root.toAbsolutePath().normalize());
    }

    public Path root() {
        return root;
    }

    /** Writes a sysfs-style file: the value and a newline. */
    public HostTree file(String path, String value) {
        return rawFile(path, value + "\n");
    }

    public HostTree rawFile(String path, String content) {
        Path file = root.resolve(path);
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** A symlink at {@code path} to {@code target} (both under the root), written relative as the kernel does. */
    public HostTree link(String path, String target) {
        Path link = root.resolve(path);
        return rawLink(path, link.getParent().relativize(root.resolve(target)).toString());
    }

    /** A symlink with the target written exactly as given, as the kernel writes some ({@code ../../../0000:15:00.0}). */
    public HostTree rawLink(String path, String target) {
        Path link = root.resolve(path);
        try {
            Files.createDirectories(link.getParent());
            Files.deleteIfExists(link);
            Files.createSymbolicLink(link, Path.of(target));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** Removes a file, a symlink (not what it points to) or a directory tree. */
    public HostTree remove(String path) {
        Path target = root.resolve(path);
        if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            return this;
        }
        try (Stream<Path> walk = Files.isSymbolicLink(target) ? Stream.of(target) : Files.walk(target)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public HostTree hostname(String name) {
        return file("proc/sys/kernel/hostname", name);
    }

    /** {@code /proc/modules}, one line per module in the kernel's format. */
    public HostTree modules(List<String> names) {
        StringBuilder text = new StringBuilder();
        for (String name : names) {
            text.append(name).append(" 65536 0 - Live 0x0000000000000000\n");
        }
        return rawFile("proc/modules", text.toString());
    }

    /** {@code /proc/self/limits} with the given memlock limits ({@code unlimited} or bytes). */
    public HostTree memlock(String soft, String hard) {
        String row = "%-26s%-21s%-21s%-10s%n";
        return rawFile("proc/self/limits",
                String.format(row, "Limit", "Soft Limit", "Hard Limit", "Units")
                        + String.format(row, "Max open files", "1048576", "1048576", "files")
                        + String.format(row, "Max locked memory", soft, hard, "bytes")
                        + String.format(row, "Max address space", "unlimited", "unlimited", "bytes"));
    }

    /**
     * A PCI function at {@code path} below {@code /sys/devices} (host bridge, bridges, then the function), with its
     * bridges, its {@code /sys/bus/pci/devices} entry and its driver link.
     */
    public HostTree pci(String path, String vendor, String device, String pciClass, String driver, int numaNode, String cpus) {
        String[] parts = path.split("/");
        StringBuilder prefix = new StringBuilder("sys/devices/").append(parts[0]);
        for (int i = 1; i < parts.length; i++) {
            prefix.append('/').append(parts[i]);
            String dir = prefix.toString();
            boolean function = i == parts.length - 1;
            if (!function && Files.exists(root.resolve(dir))) {
                continue;
            }
            file(dir + "/vendor", function ? vendor : "0x10b5");
            file(dir + "/device", function ? device : "0x9797");
            file(dir + "/class", function ? pciClass : "0x060400");
            file(dir + "/numa_node", String.valueOf(numaNode));
            file(dir + "/local_cpulist", cpus);
            link("sys/bus/pci/devices/" + parts[i], dir);
            String drv = function ? driver : "pcieport";
            if (!drv.isEmpty()) {
                link(dir + "/driver", "sys/bus/pci/drivers/" + drv);
                file("sys/bus/pci/drivers/" + drv + "/uevent", "DRIVER=" + drv);
            }
        }
        return this;
    }

    /** An RDMA device on the PCI function at {@code pciPath}, with its class link and identity files. */
    public HostTree hca(String name, String pciPath, String hcaType, String firmware, String boardId, String nodeGuid) {
        String dir = "sys/devices/" + pciPath + "/infiniband/" + name;
        hcaDirs.put(name, dir);
        rawLink(dir + "/device", "../../../" + function(pciPath));
        file(dir + "/node_type", "1: CA");
        file(dir + "/node_guid", nodeGuid);
        file(dir + "/sys_image_guid", nodeGuid);
        file(dir + "/fw_ver", firmware);
        file(dir + "/hca_type", hcaType);
        file(dir + "/board_id", boardId);
        return link("sys/class/infiniband/" + name, dir);
    }

    /** The port directory of an HCA written by {@link #hca}. */
    public String portDir(String hca, int port) {
        String dir = hcaDirs.get(hca);
        if (dir == null) {
            throw new IllegalArgumentException("no HCA " + hca + " in this tree");
        }
        return dir + "/ports/" + port;
    }

    public HostTree port(String hca, int port, String state, String physState, String rate, String linkLayer, int lid, int smLid) {
        String dir = portDir(hca, port);
        file(dir + "/state", state);
        file(dir + "/phys_state", physState);
        file(dir + "/rate", rate);
        file(dir + "/link_layer", linkLayer);
        file(dir + "/lid", String.format("0x%x", lid));
        file(dir + "/sm_lid", String.format("0x%x", smLid));
        return file(dir + "/lid_mask_count", "0");
    }

    /** One GID table entry; {@code netdev} is empty for InfiniBand ports, which have none. */
    public HostTree gid(String hca, int port, int index, String address, String type, String netdev) {
        String dir = portDir(hca, port);
        file(dir + "/gids/" + index, address);
        file(dir + "/gid_attrs/types/" + index, type);
        return netdev.isEmpty() ? this : file(dir + "/gid_attrs/ndevs/" + index, netdev);
    }

    /**
     * The port's P_Key table as the kernel shows it: one file per index (128 of them, as mlx5 has), the given keys first
     * and {@code 0x0000} in the rest.
     */
    public HostTree pkeys(String hca, int port, int... keys) {
        String dir = portDir(hca, port) + "/pkeys/";
        for (int index = 0; index < 128; index++) {
            file(dir + index, String.format("0x%04x", index < keys.length ? keys[index] : 0));
        }
        return this;
    }

    /** MLNX_OFED's per-port default traffic class file, {@code text} as its driver prints it ({@code Global tclass=106}). */
    public HostTree trafficClass(String hca, int port, String text) {
        String dir = portDir(hca, port);
        return file(dir.substring(0, dir.indexOf("/ports/")) + "/tc/" + port + "/traffic_class", text);
    }

    public HostTree counters(String hca, int port, String kind, Map<String, Long> values) {
        String dir = portDir(hca, port) + "/" + kind;
        values.forEach((name, value) -> file(dir + "/" + name, Long.toUnsignedString(value)));
        return this;
    }

    /** A network interface; {@code pciPath} empty makes it virtual. {@code devPort} counts ports from zero. */
    public HostTree netdev(String name, String pciPath, int mtu, String operState, int devPort) {
        String dir = pciPath.isEmpty() ? "sys/devices/virtual/net/" + name : "sys/devices/" + pciPath + "/net/" + name;
        file(dir + "/mtu", String.valueOf(mtu));
        file(dir + "/operstate", operState);
        file(dir + "/dev_port", String.valueOf(devPort));
        if (!pciPath.isEmpty()) {
            rawLink(dir + "/device", "../../../" + function(pciPath));
        }
        return link("sys/class/net/" + name, dir);
    }

    /**
     * A character device of an HCA: its class entry ({@code infiniband_verbs/uverbsN} or
     * {@code infiniband_mad/umadN|issmN}) with {@code ibdev} and {@code port}, and the node under {@code /dev/infiniband}.
     */
    public HostTree charDevice(String name, String hca, int port, String pciPath) {
        String clazz = name.startsWith("uverbs") ? "infiniband_verbs" : "infiniband_mad";
        String dir = "sys/devices/" + pciPath + "/" + clazz + "/" + name;
        file(dir + "/ibdev", hca);
        if (port > 0) {
            file(dir + "/port", String.valueOf(port));
        }
        file("sys/class/" + clazz + "/abi_version", clazz.equals("infiniband_verbs") ? "6" : "5");
        link("sys/class/" + clazz + "/" + name, dir);
        return rawFile("dev/infiniband/" + name, "");
    }

    private static String function(String pciPath) {
        return pciPath.substring(pciPath.lastIndexOf('/') + 1);
    }

    /** An NVIDIA GPU's entry in the driver's proc directory. */
    public HostTree gpuInformation(String address, int minor, String model, String uuid) {
        return rawFile("proc/driver/nvidia/gpus/" + address + "/information",
                "Model: \t\t " + model + "\n"
                        + "IRQ:   \t\t " + (100 + minor) + "\n"
                        + "GPU UUID: \t " + uuid + "\n"
                        + "Video BIOS: \t 96.00.99.00.01\n"
                        + "Bus Type: \t PCIe\n"
                        + "DMA Size: \t 52 bits\n"
                        + "DMA Mask: \t 0xfffffffffffff\n"
                        + "Bus Location: \t " + address + "\n"
                        + "Device Minor: \t " + minor + "\n"
                        + "GPU Excluded:\t No\n");
    }
}
