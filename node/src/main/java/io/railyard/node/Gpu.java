package io.railyard.node;

/** An NVIDIA GPU found on the PCI bus, with what the driver's proc file adds when it is loaded. */
public record Gpu(PciDevice pci, Attr<String> model, Attr<String> uuid) {

    public String address() {
        return pci.address();
    }
}
