package io.railyard.testkit;

/**
 * A KVM guest with four passthrough H100s and four ConnectX NICs, as such a VM shows them: every device straight under
 * the emulated host bridge {@code pci0000:00} (no switches, no root ports), {@code numa_node} -1, and the
 * {@code hypervisor} flag in {@code /proc/cpuinfo}. NCCL sees no GPU–NIC affinity here.
 */
public final class KvmGuest {
    private KvmGuest() {}

    public static HostTree write(HostTree tree) {
        GpuServer server = new GpuServer(tree, false, 0);
        tree.hostname("vm-h100x4").modules(GpuServer.BASE_MODULES).memlock("unlimited", "unlimited");
        tree.rawFile("dev/infiniband/rdma_cm", "");
        tree.netdev("lo", "", 65536, "unknown", 0);
        tree.rawFile("proc/cpuinfo", """
                processor\t: 0
                vendor_id\t: AuthenticAMD
                cpu family\t: 25
                model\t\t: 1
                model name\t: AMD EPYC 7V13 64-Core Processor
                flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc rep_good nopl cpuid extd_apicid tsc_known_freq pni pclmulqdq ssse3 fma cx16 sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand hypervisor lahf_lm cmp_legacy

                processor\t: 1
                vendor_id\t: AuthenticAMD
                """);
        for (int i = 0; i < 4; i++) {
            String gpu = String.format("pci0000:00/0000:00:%02x.0", 0x05 + i);
            tree.pci(gpu, "0x10de", "0x2330", "0x030200", "nvidia", -1, "0-95");
            String address = gpu.substring(gpu.lastIndexOf('/') + 1);
            tree.gpuInformation(address, i, "NVIDIA H100 80GB HBM3", "GPU-" + java.util.UUID.nameUUIDFromBytes(address.getBytes()));
            server.writeNic("mlx5_" + i, String.format("pci0000:00/0000:00:%02x.0", 0x0d + i), -1, i);
        }
        return tree;
    }
}
