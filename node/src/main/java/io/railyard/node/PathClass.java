package io.railyard.node;

import java.util.List;

/**
 * How far apart two PCI devices are, named as {@code nvidia-smi topo -m} names it, nearest first.
 * NCCL's {@code NCCL_NET_GDR_LEVEL} uses the same scale (default PXB: GPUDirect RDMA only up to PXB).
 */
public enum PathClass {
    /** Under one PCIe switch (at most one bridge level between them). */
    PIX,
    /** Under nested PCIe switches, without crossing a host bridge. */
    PXB,
    /** Through the same PCIe host bridge (the CPU's root complex). */
    PHB,
    /** Across host bridges within one NUMA node. */
    NODE,
    /** Across NUMA nodes, over the inter-socket link. */
    SYS;

    /** The class of the path between two devices, from their places in the PCI tree and their NUMA nodes. */
    public static PathClass between(PciDevice a, PciDevice b) {
        List<String> pa = a.topologyPath();
        List<String> pb = b.topologyPath();
        if (pa.isEmpty() || pb.isEmpty() || !a.hostBridge().equals(b.hostBridge())) {
            int numaA = a.numaNodeOrNone();
            return numaA >= 0 && numaA == b.numaNodeOrNone() ? NODE : SYS;
        }
        int common = 0;
        while (common < pa.size() && common < pb.size() && pa.get(common).equals(pb.get(common))) {
            common++;
        }
        if (common == 1) {
            return PHB; // only the host bridge is shared
        }
        // A PCIe switch is an upstream port with downstream ports below it: one switch puts a device at most two
        // levels under the deepest common bridge.
        int depthA = pa.size() - common;
        int depthB = pb.size() - common;
        return depthA <= 2 && depthB <= 2 ? PIX : PXB;
    }

    /** True when GPUDirect RDMA is used at this distance under NCCL's default level (PXB). */
    public boolean withinNcclDefaultGdrLevel() {
        return compareTo(PXB) <= 0;
    }
}
