package io.railyard.diagnose;

import static io.railyard.diagnose.DoctorExamplesTest.check;
import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.node.NcclTuning;
import io.railyard.node.NodeDiscovery;
import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChecksTest {
    @TempDir
    Path dir;

    private static DoctorReport doctor(Path root, List<Path> path, ClusterAccess cluster) {
        return Doctor.run(new DoctorInput(NodeDiscovery.discover(root), Map.of(), path, "rdma/rdma", cluster));
    }

    private static ClusterAccess none() {
        return new ClusterAccess.NoCredentials("no kubeconfig and no in-cluster credentials");
    }

    /** The nccl-tuning check with these variables, on a node whose labels give this fabric. */
    private static CheckResult tuning(Path root, NcclTuning.Fabric fabric, Map<String, String> env) {
        ClusterAccess cluster = new ClusterAccess.Observed(new ClusterView("gpu-1", true, Map.of(), List.of(), List.of(), fabric));
        return check(Doctor.run(new DoctorInput(NodeDiscovery.discover(root), env, List.of(), "rdma/rdma", cluster)), "nccl-tuning");
    }

    @Test
    void theNcclTuningCheckWarnsOfVariablesThatFightTheFabricAndTheGraceHost() {
        Path roce = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("roce")).root();
        Path grace = io.railyard.testkit.GraceHopper.write(HostTree.at(dir.resolve("gh200")), 2).root();
        NcclTuning.Fabric rails = new NcclTuning.Fabric("rail-optimized", 3, null);

        CheckResult fine = tuning(roce, rails, Map.of());
        CheckResult crossing = tuning(roce, rails, Map.of("NCCL_CROSS_NIC", "1", "NCCL_IB_QPS_PER_CONNECTION", "1"));
        CheckResult split = tuning(roce, rails, Map.of("NCCL_IB_QPS_PER_CONNECTION", "8", "NCCL_IB_SPLIT_DATA_ON_QPS", "1"));
        CheckResult graceOld = tuning(grace, NcclTuning.Fabric.UNKNOWN, Map.of("NCCL_VERSION", "2.26.5-1"));
        CheckResult graceNew = tuning(grace, NcclTuning.Fabric.UNKNOWN, Map.of("NCCL_VERSION", "2.27.3-1"));
        CheckResult unknown = check(doctor(roce, List.of(), none()), "nccl-tuning");

        assertThat(fine.status()).isEqualTo(CheckStatus.OK);
        assertThat(fine.summary()).isEqualTo("NCCL's network variables suit the fabric (3 set by the device plugin)");
        assertThat(fine.details()).contains("fabric: rail-optimized, 3 tiers").anySatisfy(d -> assertThat(d).startsWith("the device plugin sets NCCL_CROSS_NIC=0"));
        assertThat(crossing.status()).isEqualTo(CheckStatus.WARN);
        assertThat(crossing.summary()).startsWith("NCCL_CROSS_NIC=1 on a rail-optimized fabric")
                .contains("; NCCL_IB_QPS_PER_CONNECTION=1 on a 3-tier RoCE fabric", "4 give it entropy", "env.rst");
        assertThat(split.summary()).startsWith("NCCL_IB_SPLIT_DATA_ON_QPS=1 with 8 queue pairs");
        assertThat(graceOld.status()).isEqualTo(CheckStatus.WARN);
        assertThat(graceOld.summary()).startsWith("GPUDirect RDMA over C2C is off on this Grace host (NCCL 2.26.5-1 without NCCL_NET_GDR_C2C)");
        assertThat(graceNew.status()).isEqualTo(CheckStatus.OK);
        assertThat(unknown.status()).isEqualTo(CheckStatus.SKIP);
        assertThat(check(doctor(grace, List.of(), none()), "gpu-nic-affinity").summary())
                .startsWith("Grace host: each GPU reaches its NIC through the CPU over NVLink-C2C (0009:01:00.0 (mlx5_0 NODE))");
    }

    @Test
    void roceMtuFollowsTheKernelsHeaderAllowance() {
        assertThat(MtuCheck.activeRoceMtu(9000)).isEqualTo(4096);
        assertThat(MtuCheck.activeRoceMtu(4192)).isEqualTo(4096);
        assertThat(MtuCheck.activeRoceMtu(4191)).isEqualTo(2048);
        assertThat(MtuCheck.activeRoceMtu(1500)).isEqualTo(1024);
        assertThat(MtuCheck.activeRoceMtu(300)).isZero();
    }

    @Test
    void aRootWithoutDevSaysSoOnceInsteadOfEveryDeviceMissing() {
        HostTree tree = ExampleNodes.write(ExampleNodes.ROCE, dir);
        tree.remove("dev");

        CheckResult devices = check(doctor(tree.root(), List.of(), none()), "devices");

        assertThat(devices.status()).isEqualTo(CheckStatus.FAIL);
        assertThat(devices.summary()).startsWith("dev/ is missing from the root").doesNotContain("uverbs");
        assertThat(devices.remedy()).contains("mount the host's /dev");
    }

    @Test
    void umadIsNamedAsTheFabricToolsOwnAndItsAbsenceIsNoFault() throws Exception {
        HostTree tree = ExampleNodes.write(ExampleNodes.INFINIBAND, dir);

        CheckResult host = check(doctor(tree.root(), List.of(), none()), "devices");
        try (var devices = Files.list(tree.root().resolve("dev/infiniband"))) {
            devices.filter(device -> device.getFileName().toString().startsWith("umad")).forEach(device -> tree.remove("dev/infiniband/" + device.getFileName()));
        }
        CheckResult container = check(doctor(tree.root(), List.of(), none()), "devices");

        assertThat(host.details()).anyMatch(line -> line.startsWith("umad (raw management datagrams to the fabric): 8 present")
                && line.contains("only for a resource with managementDatagrams: true"));
        assertThat(container.status()).isEqualTo(CheckStatus.OK);
        assertThat(container.details()).anyMatch(line -> line.startsWith("umad (raw management datagrams to the fabric): none present"));
    }

    @Test
    void theTrafficClassCheckWantsOneClassOnEveryRocePortAndNcclToUseIt() {
        HostTree tree = ExampleNodes.write(ExampleNodes.ROCE, dir);
        CheckResult unset = check(doctor(tree.root(), List.of(), none()), "traffic-class");
        List.of("mlx5_1", "mlx5_2", "mlx5_3").forEach(hca -> tree.trafficClass(hca, 1, "Global tclass=106"));
        CheckResult oneWithout = check(doctor(tree.root(), List.of(), none()), "traffic-class");
        tree.trafficClass("mlx5_4", 1, "Global tclass=106");
        CheckResult same = check(doctor(tree.root(), List.of(), none()), "traffic-class");
        CheckResult otherInNccl = check(Doctor.run(new DoctorInput(NodeDiscovery.discover(tree.root()), Map.of("NCCL_IB_TC", "0"), List.of(),
                "rdma/rdma", none())), "traffic-class");
        tree.trafficClass("mlx5_4", 1, "98");
        CheckResult mixed = check(doctor(tree.root(), List.of(), none()), "traffic-class");

        assertThat(unset.status()).isEqualTo(CheckStatus.OK);
        assertThat(unset.summary()).startsWith("no RoCE port has a default traffic class set");
        assertThat(oneWithout.status()).isEqualTo(CheckStatus.WARN);
        assertThat(oneWithout.summary()).isEqualTo("traffic class 106 on mlx5_1:1, mlx5_2:1, mlx5_3:1 but none on mlx5_4:1");
        assertThat(same.status()).isEqualTo(CheckStatus.OK);
        assertThat(same.summary()).startsWith("every RoCE port uses traffic class 106 (DSCP 26)");
        assertThat(otherInNccl.status()).isEqualTo(CheckStatus.WARN);
        assertThat(otherInNccl.remedy()).contains("NCCL_IB_TC=106");
        assertThat(mixed.summary()).isEqualTo("the RoCE ports disagree on their traffic class: mlx5_1:1 106, mlx5_2:1 106, mlx5_3:1 106, mlx5_4:1 98");
        assertThat(check(doctor(ExampleNodes.write(ExampleNodes.INFINIBAND, dir.resolve("ib")).root(), List.of(), none()), "traffic-class")
                .status()).isEqualTo(CheckStatus.SKIP);
    }

    @Test
    void thePkeyCheckNamesEachPortsPartitionsAndWarnsWhenTheyShareNone() {
        HostTree tree = ExampleNodes.write(ExampleNodes.INFINIBAND, dir);
        CheckResult noTables = check(doctor(tree.root(), List.of(), none()), "pkey");
        for (int hca = 0; hca < 8; hca++) {
            tree.pkeys("mlx5_" + hca, 1, 0xffff, 0x8001);
        }
        CheckResult shared = check(doctor(tree.root(), List.of(), none()), "pkey");
        tree.pkeys("mlx5_7", 1, 0x0002);
        CheckResult apart = check(doctor(tree.root(), List.of(), none()), "pkey");

        assertThat(noTables.status()).isEqualTo(CheckStatus.SKIP);
        assertThat(shared.status()).isEqualTo(CheckStatus.OK);
        assertThat(shared.summary()).isEqualTo("8 InfiniBand ports in partitions 0x7fff, 0x0001");
        assertThat(shared.details()).contains("mlx5_0:1: 0xffff at 0 (full), 0x8001 at 1 (full)");
        assertThat(apart.status()).isEqualTo(CheckStatus.WARN);
        assertThat(apart.summary()).isEqualTo("the InfiniBand ports share no partition: one job cannot use them together"
                + " (mlx5_7:1 in 0x0002, its peers in 0x7fff, 0x0001)");
        assertThat(apart.details()).contains("mlx5_7:1: 0x0002 at 0 (limited)");
    }

    @Test
    void thePkeyCheckReadsRocePortsTablesAndNamesThePortOutOfItsPeersPartitions() {
        HostTree tree = ExampleNodes.write(ExampleNodes.ROCE, dir);
        for (int hca = 1; hca <= 4; hca++) {
            tree.pkeys("mlx5_" + hca, 1, 0xffff, 0x8001);
        }
        CheckResult same = check(doctor(tree.root(), List.of(), none()), "pkey");
        tree.pkeys("mlx5_3", 1, 0xffff);
        CheckResult odd = check(doctor(tree.root(), List.of(), none()), "pkey");

        assertThat(same.status()).isEqualTo(CheckStatus.OK);
        assertThat(same.summary()).isEqualTo("4 RoCE ports in partitions 0x7fff, 0x0001");
        assertThat(odd.status()).isEqualTo(CheckStatus.WARN);
        assertThat(odd.summary()).isEqualTo("a port's partitions differ from its peers': mlx5_3:1 in 0x7fff, its peers in 0x7fff, 0x0001;"
                + " a job's pkey outside 0x7fff cannot use them all");
        assertThat(odd.remedy()).contains("RoCE: the NIC's P_Key configuration");
    }

    @Test
    void aVmsFlatPciTreeWantsATopologyFileAndAGivenFileIsCheckedAgainstTheNode() throws Exception {
        HostTree guest = io.railyard.testkit.KvmGuest.write(HostTree.at(dir.resolve("vm")));
        io.railyard.node.NodeInventory node = NodeDiscovery.discover(guest.root());
        Path matching = Files.writeString(dir.resolve("topo.xml"), io.railyard.node.NcclTopology.xml(node, new io.railyard.node.Sysfs(guest.root())));
        Path foreign = Files.writeString(dir.resolve("other.xml"), Files.readString(matching).replace("0000:00:05.0", "0001:00:00.0"));

        CheckResult none = check(doctor(guest.root(), List.of(), none()), "virtual-topology");
        CheckResult given = check(Doctor.run(new DoctorInput(node, Map.of("NCCL_TOPO_FILE", matching.toString()), List.of(), "rdma/rdma", none())),
                "virtual-topology");
        CheckResult wrong = check(Doctor.run(new DoctorInput(node, Map.of("NCCL_TOPO_FILE", foreign.toString()), List.of(), "rdma/rdma", none())),
                "virtual-topology");
        CheckResult missing = check(Doctor.run(new DoctorInput(node, Map.of("NCCL_TOPO_FILE", dir.resolve("gone.xml").toString()), List.of(),
                "rdma/rdma", none())), "virtual-topology");
        CheckResult server = check(doctor(ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("server")).root(), List.of(), none()), "virtual-topology");

        assertThat(none.status()).isEqualTo(CheckStatus.WARN);
        assertThat(none.summary()).isEqualTo("the GPUs and NICs sit on a flat virtual PCI tree and no NCCL_TOPO_FILE is set: "
                + "NCCL cannot see which NIC is near which GPU");
        assertThat(none.details()).contains("GPUs' NUMA node: none (-1)", "/proc/cpuinfo: a hypervisor");
        assertThat(given.status()).isEqualTo(CheckStatus.OK);
        assertThat(given.summary()).endsWith("matches this node's 4 GPUs and 4 RDMA NICs");
        assertThat(wrong.status()).isEqualTo(CheckStatus.FAIL);
        assertThat(wrong.details()).containsExactly("GPU 0001:00:00.0 of the file is not a PCI function of this node",
                "GPU 0000:00:05.0 is not in the file: NCCL places it by itself");
        assertThat(missing.status()).isEqualTo(CheckStatus.FAIL);
        assertThat(server.status()).isEqualTo(CheckStatus.OK);
    }

    @Test
    void portsThatShareARemedyAreNamedTogetherWithItOnce() {
        HostTree tree = ExampleNodes.write(ExampleNodes.INFINIBAND, dir);
        for (int hca = 0; hca < 8; hca++) {
            tree.file(tree.portDir("mlx5_" + hca, 1) + "/state", "1: DOWN");
            tree.file(tree.portDir("mlx5_" + hca, 1) + "/phys_state", hca == 7 ? "3: Disabled" : "2: Polling");
        }

        CheckResult link = check(doctor(tree.root(), List.of(), none()), "link");

        assertThat(link.remedy()).isEqualTo("mlx5_0:1, mlx5_1:1, mlx5_2:1, mlx5_3:1, mlx5_4:1, mlx5_5:1, mlx5_6:1: no link partner: "
                + "check the cable, the optic and the switch port; mlx5_7:1: the port is disabled: enable it (ip link set <netdev> up, or on the switch)");
    }

    @Test
    void gidIndexesThatDifferWarn() {
        HostTree tree = ExampleNodes.write(ExampleNodes.ROCE, dir);
        tree.file(tree.portDir("mlx5_2", 1) + "/gids/3", "0000:0000:0000:0000:0000:0000:0000:0000");
        tree.gid("mlx5_2", 1, 5, "0000:0000:0000:0000:0000:ffff:0a0a:020b", "RoCE v2", "eth2");

        CheckResult gid = check(doctor(tree.root(), List.of(), none()), "gid");

        assertThat(gid.status()).isEqualTo(CheckStatus.WARN);
        assertThat(gid.summary()).contains("differs between ports: 3, 5, 3, 3");
        assertThat(gid.remedy()).contains("NCCL_IB_ADDR_FAMILY=AF_INET");
    }

    @Test
    void dmaBufMakesGpuDirectPossibleWithoutPeerMemory() {
        HostTree tree = ExampleNodes.write("broken/gpudirect", dir);
        tree.file("proc/driver/nvidia/version",
                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build");

        CheckResult gpudirect = check(doctor(tree.root(), List.of(), none()), "gpudirect");

        assertThat(gpudirect.status()).isEqualTo(CheckStatus.OK);
        assertThat(gpudirect.summary()).contains("DMA-BUF");
        assertThat(GpuDirectCheck.atLeast512("5.11.0-1")).isFalse();
        assertThat(GpuDirectCheck.atLeast512("6.8.0-45-generic")).isTrue();
    }

    @Test
    void largeButLimitedMemlockWarns() {
        HostTree tree = ExampleNodes.write(ExampleNodes.ROCE, dir).memlock(String.valueOf(8L << 30), String.valueOf(8L << 30));

        CheckResult memlock = check(doctor(tree.root(), List.of(), none()), "memlock");

        assertThat(memlock.status()).isEqualTo(CheckStatus.WARN);
        assertThat(memlock.summary()).contains("8 GiB");
    }

    @Test
    void perftestFoundOnPath() throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path tool = Files.writeString(bin.resolve("ib_write_bw"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path root = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("node")).root();

        CheckResult perftest = check(doctor(root, List.of(dir.resolve("nowhere"), bin), none()), "perftest");

        assertThat(perftest.status()).isEqualTo(CheckStatus.OK);
        assertThat(perftest.summary()).contains(tool.toString());
        assertThat(perftest.details()).contains("on the first node: ib_write_bw -d mlx5_1 -x 3 -F --report_gbits");
    }

    @Test
    void kubernetesVerdicts() {
        Path root = ExampleNodes.write(ExampleNodes.ROCE, dir).root();
        ClusterView.PluginPod ready = new ClusterView.PluginPod("railyard", "railyard-agent-x7k2p", "Running", true);
        ClusterView.PluginPod notReady = new ClusterView.PluginPod("kube-system", "rdma-shared-dp-ds-abcde", "Running", false);

        assertThat(kubernetes(root, new ClusterAccess.Observed(new ClusterView("gpu-1", true, Map.of("rdma/rdma", "4"), List.of(ready), List.of()))))
                .extracting(CheckResult::status, CheckResult::summary)
                .containsExactly(CheckStatus.OK, "gpu-1 offers 4 rdma/rdma through a ready device plugin");
        assertThat(kubernetes(root, new ClusterAccess.Observed(new ClusterView("gpu-1", true, Map.of("rdma/rdma", "0"), List.of(ready), List.of()))).summary())
                .contains("gpu-1 has no allocatable rdma/rdma");
        assertThat(kubernetes(root, new ClusterAccess.Observed(new ClusterView("gpu-1", true, Map.of(), List.of(notReady), List.of()))).summary())
                .contains("is not ready");
        assertThat(kubernetes(root, new ClusterAccess.Observed(new ClusterView("gpu-1", true, Map.of("rdma/rdma", "4"), List.of(), List.of()))).summary())
                .contains("no RDMA device plugin pod runs on gpu-1");
        assertThat(kubernetes(root, new ClusterAccess.Observed(new ClusterView("gpu-9", false, Map.of(), List.of(), List.of()))).summary())
                .contains("node gpu-9 is not in the cluster");
        CheckResult problems = kubernetes(root, new ClusterAccess.Observed(new ClusterView("gpu-1", true, Map.of("rdma/rdma", "4"), List.of(ready),
                List.of("RdmaPortDown: mlx5_3 port 1: DOWN/Polling since 2026-01-01T00:00:00Z", "RdmaLinkFlapping: mlx5_3 port 1: down and up 3 times in 600 s"))));
        assertThat(problems.status()).isEqualTo(CheckStatus.WARN);
        assertThat(problems.summary()).isEqualTo("gpu-1 reports RdmaPortDown, RdmaLinkFlapping (its agent's Node conditions)");
        assertThat(problems.details()).contains("RdmaPortDown: mlx5_3 port 1: DOWN/Polling since 2026-01-01T00:00:00Z");
        assertThat(kubernetes(root, new ClusterAccess.Unreachable("https://10.0.0.1:6443: connect timed out")).status())
                .isEqualTo(CheckStatus.WARN);
        assertThat(kubernetes(root, none()).status()).isEqualTo(CheckStatus.SKIP);
    }

    private static CheckResult kubernetes(Path root, ClusterAccess cluster) {
        return check(doctor(root, List.of(), cluster), "kubernetes");
    }
}
