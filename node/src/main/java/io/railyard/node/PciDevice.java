package io.railyard.node;

import java.util.List;

/**
 * A PCI function: its address, where it sits in the PCI tree, and what sysfs says about it.
 *
 * @param topologyPath the real path below {@code /sys/devices}, e.g.
 *     {@code [pci0000:10, 0000:10:01.0, 0000:11:00.0, 0000:12:00.0, 0000:13:00.0]}: the host bridge, then every
 *     bridge down to the device itself
 */
public record PciDevice(
        String address,
        List<String> topologyPath,
        Attr<String> vendor,
        Attr<String> device,
        Attr<String> pciClass,
        Attr<String> driver,
        Attr<Integer> numaNode,
        Attr<String> localCpus) {

    public PciDevice {
        topologyPath = List.copyOf(topologyPath);
    }

    /** The host bridge (root complex) the device hangs from, e.g. {@code pci0000:10}. */
    public String hostBridge() {
        return topologyPath.isEmpty() ? "" : topologyPath.getFirst();
    }

    /** The NUMA node, or -1 when the kernel reports none or it is unknown. */
    public int numaNodeOrNone() {
        return numaNode.orElse(-1);
    }
}
