package io.railyard.node;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A snapshot of one node's RDMA and GPU hardware, read under a root directory. Counters are read on demand.
 *
 * @param nvidiaDriver the first line of {@code /proc/driver/nvidia/version}
 * @param devPresent whether the root has a {@code dev} directory at all (a container may mount only /sys and /proc)
 * @param peerMemory what makes GPUDirect RDMA possible through a peer-memory client ({@code module nvidia_peermem}, …)
 */
public record NodeInventory(
        String root,
        Attr<String> hostname,
        List<Hca> hcas,
        List<Gpu> gpus,
        List<Netdev> netdevs,
        KernelModules modules,
        Attr<MemlockLimit> memlock,
        Attr<String> kernelRelease,
        Attr<String> nvidiaDriver,
        boolean devPresent,
        boolean rdmaCmPresent,
        List<String> peerMemory,
        String graceC2c) {

    public NodeInventory {
        hcas = List.copyOf(hcas);
        gpus = List.copyOf(gpus);
        netdevs = List.copyOf(netdevs);
        peerMemory = List.copyOf(peerMemory);
    }

    /**
     * Whether this is an NVIDIA Grace host whose GPUs hang off the CPU over NVLink-C2C (GH200, GB200): GPUDirect RDMA
     * then goes through the CPU ({@code NCCL_NET_GDR_C2C}), and a GPU on a PCI domain of its own is the normal layout.
     */
    public boolean isGraceC2c() {
        return !graceC2c.isEmpty();
    }

    /** Every port of every HCA, in HCA then port order. */
    public List<Port> ports() {
        return hcas.stream().flatMap(hca -> hca.ports().stream()).toList();
    }

    public Optional<Hca> hca(String name) {
        return hcas.stream().filter(hca -> hca.name().equals(name)).findFirst();
    }

    public Optional<Netdev> netdev(String name) {
        return netdevs.stream().filter(netdev -> netdev.name().equals(name)).findFirst();
    }

    /** For each GPU, the nearest HCA by PCI path class (then by name); empty when there are no HCAs with a known PCI place. */
    public List<GpuNicAffinity> gpuNicAffinities() {
        List<GpuNicAffinity> result = new ArrayList<>();
        for (Gpu gpu : gpus) {
            hcas.stream()
                    .filter(hca -> hca.pci().isKnown())
                    .map(hca -> new GpuNicAffinity(gpu, hca, PathClass.between(gpu.pci(), hca.pci().orElseThrow())))
                    .min(Comparator.comparing(GpuNicAffinity::pathClass))
                    .ifPresent(result::add);
        }
        return result;
    }
}
