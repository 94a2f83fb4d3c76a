package io.railyard.node;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Reads a {@link NodeInventory} from the host's files under a root directory. Never fails on an odd file. */
public final class NodeDiscovery {
    private static final List<String> PEER_MEMORY_MODULES = List.of("nvidia_peermem", "nv_peer_mem");
    private static final List<String> PEER_MEMORY_FILES = List.of(
            "sys/kernel/mm/memory_peers/nv_mem/version", "sys/kernel/mm/memory_peers/nv_mem_nc/version");

    private NodeDiscovery() {}

    public static NodeInventory discover(Path root) {
        Sysfs sysfs = new Sysfs(root);
        PciReader pci = new PciReader(sysfs);
        List<Netdev> netdevs = NetdevReader.readAll(sysfs);
        List<Hca> hcas = new HcaReader(sysfs, pci, netdevs).readAll();
        KernelModules modules = new KernelModules(
                sysfs.read(sysfs.resolve("proc/modules"), KernelModules::parseProcModules),
                Set.copyOf(sysfs.list(sysfs.resolve("sys/module"))));
        return new NodeInventory(
                sysfs.root().toString(),
                sysfs.read(sysfs.resolve("proc/sys/kernel/hostname")),
                hcas,
                readGpus(sysfs, pci),
                netdevs,
                modules,
                sysfs.read(sysfs.resolve("proc/self/limits"), MemlockLimit::parse),
                sysfs.read(sysfs.resolve("proc/sys/kernel/osrelease")),
                sysfs.read(sysfs.resolve("proc/driver/nvidia/version")).map(text -> text.lines().findFirst().orElse("")),
                sysfs.exists(sysfs.resolve("dev")),
                sysfs.exists(sysfs.resolve("dev/infiniband/rdma_cm")),
                peerMemory(sysfs, modules));
    }

    private static List<Gpu> readGpus(Sysfs sysfs, PciReader pci) {
        List<Gpu> gpus = new ArrayList<>();
        for (PciDevice device : pci.gpus()) {
            Attr<String> information = sysfs.read(sysfs.resolve("proc/driver/nvidia/gpus").resolve(device.address()).resolve("information"));
            gpus.add(new Gpu(device, information.flatMap(text -> field(text, "Model")), information.flatMap(text -> field(text, "GPU UUID"))));
        }
        return gpus;
    }

    /** What makes GPUDirect RDMA possible here: a peer-memory module or the memory_peers interface of older stacks. */
    private static List<String> peerMemory(Sysfs sysfs, KernelModules modules) {
        List<String> found = new ArrayList<>();
        PEER_MEMORY_MODULES.stream().filter(modules::isLoaded).forEach(name -> found.add("module " + name));
        PEER_MEMORY_FILES.stream().filter(file -> sysfs.exists(sysfs.resolve(file))).forEach(file -> found.add("/" + file));
        return found;
    }

    private static Attr<String> field(String information, String name) {
        return information.lines()
                .filter(line -> line.startsWith(name + ":"))
                .map(line -> line.substring(name.length() + 1).strip())
                .findFirst()
                .map(Attr::of)
                .orElse(Attr.unknown("no '" + name + ":' line in the driver's information file"));
    }
}
