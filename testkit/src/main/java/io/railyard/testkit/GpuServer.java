package io.railyard.testkit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Writes an 8-GPU server in the shape of an HGX board: two sockets, four PCIe switches, two GPUs and the RDMA NICs
 * of each switch side by side under it, four NVSwitches, and a management NIC ({@code eth0}) that has no RDMA.
 */
final class GpuServer {
    static final List<String> BASE_MODULES = List.of(
            "nvidia_peermem", "nvidia_uvm", "nvidia", "mlx5_ib", "mlx5_core", "mlxfw", "ib_uverbs", "ib_umad",
            "ib_ipoib", "rdma_ucm", "rdma_cm", "iw_cm", "ib_cm", "ib_core", "ice");
    private static final int[] SWITCH_BUS = {0x10, 0x30, 0x90, 0xb0};
    private static final String[] NUMA_CPUS = {"0-55,112-167", "56-111,168-223"};

    private final HostTree tree;
    private final boolean infiniBand;
    private final int nicsPerSwitch;
    private final List<String> hcaNames = new ArrayList<>();

    GpuServer(HostTree tree, boolean infiniBand, int nicsPerSwitch) {
        this.tree = tree;
        this.infiniBand = infiniBand;
        this.nicsPerSwitch = nicsPerSwitch;
    }

    /** Writes the whole server; HCAs are named {@code mlx5_<firstHca>} onwards in PCI order. */
    List<String> write(String hostname, int firstHca) {
        tree.hostname(hostname).modules(BASE_MODULES).memlock("unlimited", "unlimited");
        tree.pci("pci0000:00/0000:00:1c.0/0000:02:00.0", "0x8086", "0x1593", "0x020000", "ice", 0, NUMA_CPUS[0]);
        tree.netdev("eth0", "pci0000:00/0000:00:1c.0/0000:02:00.0", 1500, "up", 0);
        tree.netdev("lo", "", 65536, "unknown", 0);
        tree.rawFile("dev/infiniband/rdma_cm", "");
        tree.file("proc/sys/kernel/osrelease", "5.15.0-124-generic");
        tree.rawFile("proc/driver/nvidia/version",
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.127.05  Tue Oct  8 03:22:07 UTC 2024\n"
                        + "GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)\n");
        for (int i = 0; i < 4; i++) {
            String path = String.format("pci0000:00/0000:00:05.0/0000:%02x:00.0", 0x05 + i);
            tree.pci(path, "0x10de", "0x22a3", "0x068000", "", 0, NUMA_CPUS[0]);
        }
        int gpu = 0;
        int hca = firstHca;
        for (int s = 0; s < SWITCH_BUS.length; s++) {
            for (int slot = 0; slot < 2 + nicsPerSwitch; slot++) {
                String path = endpoint(s, slot);
                if (slot < 2) {
                    writeGpu(path, s / 2, gpu++);
                } else {
                    writeNic("mlx5_" + hca, path, s / 2, hca - firstHca);
                    hca++;
                }
            }
        }
        return hcaNames;
    }

    /** The PCI path of the endpoint in a slot of a switch: host bridge, root port, switch upstream, downstream, device. */
    static String endpoint(int switchIndex, int slot) {
        int bus = SWITCH_BUS[switchIndex];
        return String.format("pci0000:%02x/0000:%02x:01.0/0000:%02x:00.0/0000:%02x:%02x.0/0000:%02x:00.0",
                bus, bus, bus + 1, bus + 2, slot, bus + 3 + slot);
    }

    private void writeGpu(String path, int numa, int minor) {
        tree.pci(path, "0x10de", "0x2330", "0x030200", "nvidia", numa, NUMA_CPUS[numa]);
        String address = path.substring(path.lastIndexOf('/') + 1);
        String uuid = "GPU-" + UUID.nameUUIDFromBytes(address.getBytes());
        tree.gpuInformation(address, minor, "NVIDIA H100 80GB HBM3", uuid);
    }

    void writeNic(String name, String path, int numa, int ordinal) {
        hcaNames.add(name);
        String guid = String.format("b83f:d203:00a1:%04x", 0x2b00 + ordinal * 2);
        if (infiniBand) {
            tree.pci(path, "0x15b3", "0x1021", "0x020700", "mlx5_core", numa, cpus(numa));
            tree.hca(name, path, "MT4129", "28.39.1002", "MT_0000000838", guid);
            tree.port(name, 1, "4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)", "InfiniBand", 0x10 + ordinal, 0x1);
            tree.gid(name, 1, 0, "fe80:0000:0000:0000:" + guid, "IB/RoCE v1", "");
            tree.netdev("ib" + ordinal, path, 4092, "up", 0);
        } else {
            String netdev = "eth" + (ordinal + 1);
            tree.pci(path, "0x15b3", "0x101d", "0x020000", "mlx5_core", numa, cpus(numa));
            tree.hca(name, path, "MT4125", "22.39.1002", "MT_0000000359", guid);
            tree.port(name, 1, "4: ACTIVE", "5: LinkUp", "200 Gb/sec (2X HDR)", "Ethernet", 0, 0);
            String linkLocal = String.format("fe80:0000:0000:0000:ba3f:d2ff:fea1:%04x", 0x2b00 + ordinal * 2);
            String ipv4 = String.format("0000:0000:0000:0000:0000:ffff:0a0a:%02x0b", ordinal + 1);
            tree.gid(name, 1, 0, linkLocal, "IB/RoCE v1", netdev);
            tree.gid(name, 1, 1, linkLocal, "RoCE v2", netdev);
            tree.gid(name, 1, 2, ipv4, "IB/RoCE v1", netdev);
            tree.gid(name, 1, 3, ipv4, "RoCE v2", netdev);
            tree.file(tree.portDir(name, 1) + "/gids/4", "0000:0000:0000:0000:0000:0000:0000:0000");
            tree.netdev(netdev, path, 9000, "up", 0);
            tree.counters(name, 1, "hw_counters", hwCounters(name));
        }
        tree.counters(name, 1, "counters", pmaCounters(name));
        // The kernel numbers character devices in probe order, not by the HCA's name.
        tree.charDevice("uverbs" + ordinal, name, 0, path);
        tree.charDevice("umad" + ordinal, name, 1, path);
        tree.charDevice("issm" + ordinal, name, 1, path);
    }

    /** The CPUs near a NUMA node; a VM's devices (NUMA -1) are near all of its CPUs. */
    private static String cpus(int numa) {
        return numa < 0 ? "0-95" : NUMA_CPUS[numa];
    }

    private static Map<String, Long> pmaCounters(String hca) {
        long seed = Math.abs((long) hca.hashCode()) % 1000;
        Map<String, Long> values = new LinkedHashMap<>();
        for (String name : List.of("VL15_dropped", "excessive_buffer_overrun_errors", "link_downed", "link_error_recovery",
                "local_link_integrity_errors", "port_rcv_constraint_errors", "port_rcv_errors",
                "port_rcv_remote_physical_errors", "port_rcv_switch_relay_errors", "port_xmit_constraint_errors",
                "port_xmit_discards", "symbol_error")) {
            values.put(name, 0L);
        }
        values.put("port_rcv_data", 91_234_567_000L + seed * 7919);
        values.put("port_xmit_data", 90_876_543_000L + seed * 6151);
        values.put("port_rcv_packets", 1_234_567_000L + seed * 31);
        values.put("port_xmit_packets", 1_230_000_000L + seed * 37);
        values.put("port_xmit_wait", 4_096L + seed);
        values.put("unicast_rcv_packets", 1_234_560_000L + seed * 31);
        values.put("unicast_xmit_packets", 1_229_990_000L + seed * 37);
        values.put("multicast_rcv_packets", 7_000L + seed);
        values.put("multicast_xmit_packets", 10_000L + seed);
        return values;
    }

    private static Map<String, Long> hwCounters(String hca) {
        long seed = Math.abs((long) hca.hashCode()) % 100;
        Map<String, Long> values = new LinkedHashMap<>();
        for (String name : List.of("duplicate_request", "implied_nak_seq_err", "lifespan", "local_ack_timeout_err",
                "np_cnp_sent", "np_ecn_marked_roce_packets", "out_of_buffer", "out_of_sequence", "packet_seq_err",
                "req_cqe_error", "req_cqe_flush_error", "req_remote_access_errors", "req_remote_invalid_request",
                "req_rnr_retries_exceeded", "req_transport_retries_exceeded", "resp_cqe_error", "resp_cqe_flush_error",
                "resp_local_length_error", "resp_remote_access_errors", "rnr_nak_retry_err", "roce_adp_retrans",
                "roce_adp_retrans_to", "roce_slow_restart", "roce_slow_restart_cnps", "roce_slow_restart_trans",
                "rp_cnp_handled", "rp_cnp_ignored", "rx_atomic_requests", "rx_dct_connect", "rx_icrc_encapsulated",
                "rx_read_requests", "rx_write_requests")) {
            values.put(name, 0L);
        }
        values.put("lifespan", 10L);
        values.put("np_cnp_sent", 1_200L + seed);
        values.put("np_ecn_marked_roce_packets", 1_500L + seed);
        values.put("rp_cnp_handled", 1_100L + seed);
        values.put("rx_write_requests", 88_000_000L + seed * 1000);
        values.put("rx_read_requests", 12_000L + seed);
        return values;
    }
}
