package io.railyard.node;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** Reads PCI functions from {@code /sys/devices/pci…}, and finds the GPUs on the bus. */
final class PciReader {
    private static final Pattern BDF = Pattern.compile("\\p{XDigit}{4}:\\p{XDigit}{2}:\\p{XDigit}{2}\\.\\p{XDigit}");
    private static final String NVIDIA = "0x10de";

    private final Sysfs sysfs;
    private final Path devicesRoot;

    PciReader(Sysfs sysfs) {
        this.sysfs = sysfs;
        this.devicesRoot = sysfs.realPath(sysfs.resolve("sys/devices")).orElse(sysfs.resolve("sys/devices"));
    }

    /** The PCI function a {@code device} symlink (or a {@code /sys/bus/pci/devices} entry) leads to. */
    Attr<PciDevice> read(Path deviceLink) {
        return sysfs.realPath(deviceLink).flatMap(real -> {
            String address = real.getFileName().toString();
            if (!BDF.matcher(address).matches()) {
                return Attr.unknown(sysfs.hostPath(deviceLink) + ": leads to " + address + ", not a PCI function");
            }
            return Attr.of(new PciDevice(
                    address,
                    topologyPath(real),
                    sysfs.read(real.resolve("vendor")),
                    sysfs.read(real.resolve("device")),
                    sysfs.read(real.resolve("class")),
                    sysfs.linkName(real.resolve("driver")),
                    sysfs.readInt(real.resolve("numa_node")),
                    sysfs.read(real.resolve("local_cpulist"))));
        });
    }

    /** NVIDIA display and 3D controllers (class 0x0300xx, 0x0302xx); NVSwitches (0x0680xx) are not GPUs. */
    List<PciDevice> gpus() {
        Path bus = sysfs.resolve("sys/bus/pci/devices");
        List<PciDevice> gpus = new ArrayList<>();
        for (String address : sysfs.list(bus)) {
            Path entry = bus.resolve(address);
            if (!sysfs.read(entry.resolve("vendor")).is(NVIDIA::equalsIgnoreCase)) {
                continue;
            }
            if (!sysfs.read(entry.resolve("class")).is(PciReader::isGpuClass)) {
                continue;
            }
            read(entry).map(gpus::add);
        }
        return gpus;
    }

    private static boolean isGpuClass(String pciClass) {
        String c = pciClass.toLowerCase();
        return c.startsWith("0x0300") || c.startsWith("0x0302");
    }

    private List<String> topologyPath(Path real) {
        if (!real.startsWith(devicesRoot)) {
            return List.of();
        }
        List<String> path = new ArrayList<>();
        for (Path part : devicesRoot.relativize(real)) {
            path.add(part.toString());
        }
        return path;
    }
}
