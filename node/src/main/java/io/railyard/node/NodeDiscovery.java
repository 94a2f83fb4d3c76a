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
        List<Gpu> gpus = readGpus(sysfs, pci);
        KernelModules modules = new KernelModules(
                sysfs.read(sysfs.resolve("proc/modules"), KernelModules::parseProcModules),
                Set.copyOf(sysfs.list(sysfs.resolve("sys/module"))));
        return new NodeInventory(
                sysfs.root().toString(),
                sysfs.read(sysfs.resolve("proc/sys/kernel/hostname")),
                hcas,
                gpus,
                netdevs,
                modules,
                sysfs.read(sysfs.resolve("proc/self/limits"), MemlockLimit::parse),
                sysfs.read(sysfs.resolve("proc/sys/kernel/osrelease")),
                sysfs.read(sysfs.resolve("proc/driver/nvidia/version")).map(text -> text.lines().findFirst().orElse("")),
                sysfs.exists(sysfs.resolve("dev")),
                sysfs.exists(sysfs.resolve("dev/infiniband/rdma_cm")),
                peerMemory(sysfs, modules),
                graceC2c(sysfs, gpus));
    }

    /**
     * The evidence that the GPUs reach the CPU over NVLink-C2C, empty when they do not: an Arm Neoverse-V2 CPU (NVIDIA
     * Grace; AWS Graviton4 is one too), NVIDIA GPUs, and NUMA nodes without CPUs, where Grace hosts put the GPUs'
     * memory. A Graviton4 with PCIe GPUs has no such NUMA nodes.
     */
    private static String graceC2c(Sysfs sysfs, List<Gpu> gpus) {
        java.util.Map<String, String> cpu = NcclTopology.cpuInfo(sysfs);
        if (gpus.isEmpty() || !"0x41".equals(cpu.get("CPU implementer")) || !"0xd4f".equals(cpu.get("CPU part"))) {
            return "";
        }
        Path nodes = sysfs.resolve("sys/devices/system/node");
        List<String> cpuLess = sysfs.list(nodes).stream().filter(n -> n.matches("node\\d+"))
                .filter(n -> sysfs.read(nodes.resolve(n).resolve("cpulist")).map(String::strip).orElse("x").isEmpty()).sorted().toList();
        if (cpuLess.isEmpty()) {
            return "";
        }
        return "Neoverse-V2 CPU (implementer 0x41, part 0xd4f), " + gpus.size() + " NVIDIA GPU" + (gpus.size() == 1 ? "" : "s")
                + ", " + cpuLess.size() + " NUMA nodes without CPUs for their memory";
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
