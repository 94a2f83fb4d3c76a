package io.railyard.testkit;

/**
 * A GH200 Grace Hopper host as such a system shows itself: the Grace CPU's 64 Neoverse-V2 cores in NUMA node 0
 * ({@code /proc/cpuinfo} implementer 0x41, part 0xd4f), the Hopper GPU on a PCI domain of its own ({@code 0009:01:00.0},
 * attached to the CPU over NVLink-C2C, not PCIe), its memory in CPU-less NUMA nodes 1 to 8, and ConnectX-7 RoCE NICs on
 * the CPU's PCIe. Sources: {@code lscpu} of a GH200 (hu-po/warp-ik docs/specs/arm-gh200.md: 64 CPUs, Neoverse-V2 r0p0,
 * 9 NUMA nodes, node0 CPUs 0-63, nodes 1-8 none) and {@code nvidia-smi}'s Bus-Id 00000009:01:00.0 for the GH200 in
 * public threads (NVIDIA dcgm-exporter's DRA example among them).
 */
public final class GraceHopper {
    private GraceHopper() {}

    public static HostTree write(HostTree tree, int nics) {
        GpuServer server = new GpuServer(tree, false, 0);
        tree.hostname("gh200-01").modules(GpuServer.BASE_MODULES).memlock("unlimited", "unlimited");
        tree.rawFile("dev/infiniband/rdma_cm", "");
        tree.netdev("lo", "", 65536, "unknown", 0);
        tree.file("proc/sys/kernel/osrelease", "6.8.0-1013-nvidia-64k");
        tree.rawFile("proc/cpuinfo", """
                processor\t: 0
                BogoMIPS\t: 2000.00
                Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma lrcpc dcpop sha3 sm3 sm4 asimddp sha512 sve asimdfhm dit uscat ilrcpc flagm ssbs sb paca pacg dcpodp sve2 sveaes svepmull svebitperm svesha3 svesm4 flagm2 frint svei8mm svebf16 i8mm bf16 dgh bti
                CPU implementer\t: 0x41
                CPU architecture: 8
                CPU variant\t: 0x0
                CPU part\t: 0xd4f
                CPU revision\t: 0

                processor\t: 1
                BogoMIPS\t: 2000.00
                """);
        tree.file("sys/devices/system/node/node0/cpulist", "0-63");
        tree.file("sys/devices/system/node/node0/cpumap", "ffffffff,ffffffff");
        for (int node = 1; node <= 8; node++) {
            tree.file("sys/devices/system/node/node" + node + "/cpulist", "");
            tree.file("sys/devices/system/node/node" + node + "/cpumap", "00000000,00000000");
        }
        tree.pci("pci0009:00/0009:00:00.0/0009:01:00.0", "0x10de", "0x2342", "0x030200", "nvidia", 0, "0-63");
        tree.gpuInformation("0009:01:00.0", 0, "NVIDIA GH200 480GB", "GPU-" + java.util.UUID.nameUUIDFromBytes("gh200".getBytes()));
        for (int i = 0; i < nics; i++) {
            server.writeNic("mlx5_" + i, String.format("pci%04x:00/%04x:00:00.0/%04x:01:00.0", i, i, i), 0, i);
        }
        return tree;
    }
}
