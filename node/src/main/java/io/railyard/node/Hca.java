package io.railyard.node;

import java.util.List;
import java.util.Optional;

/** An RDMA device (host channel adapter) from {@code /sys/class/infiniband/<name>}. */
public record Hca(
        String name,
        Attr<String> nodeType,
        Attr<String> nodeGuid,
        Attr<String> systemImageGuid,
        Attr<String> firmware,
        Attr<String> hcaType,
        Attr<String> boardId,
        Attr<PciDevice> pci,
        List<Port> ports,
        List<CharDevice> charDevices) {

    public Hca {
        ports = List.copyOf(ports);
        charDevices = List.copyOf(charDevices);
    }

    /** The verbs device ({@code uverbsN}) through which user space reaches this HCA. */
    public Optional<CharDevice> uverbs() {
        return charDevices.stream().filter(d -> d.kind() == CharDevice.Kind.UVERBS).findFirst();
    }

    public Optional<Port> port(int number) {
        return ports.stream().filter(p -> p.number() == number).findFirst();
    }

    /** The NUMA node of the HCA's PCI function, or -1. */
    public int numaNodeOrNone() {
        return pci.map(PciDevice::numaNodeOrNone).orElse(-1);
    }
}
