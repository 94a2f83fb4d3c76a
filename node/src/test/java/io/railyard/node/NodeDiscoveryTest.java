package io.railyard.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeDiscoveryTest {
    @TempDir
    Path dir;

    @Test
    void aGraceHopperHostIsKnownByItsCpuAndItsCpuLessNumaNodesAndAnX86OrArmHostWithoutThemIsNot() {
        NodeInventory grace = NodeDiscovery.discover(io.railyard.testkit.GraceHopper.write(HostTree.at(dir.resolve("gh200")), 2).root());
        NodeInventory x86 = NodeDiscovery.discover(ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("x86")).root());
        HostTree graviton = io.railyard.testkit.GraceHopper.write(HostTree.at(dir.resolve("arm")), 2);
        for (int node = 1; node <= 8; node++) {
            graviton.remove("sys/devices/system/node/node" + node);
        }

        assertThat(grace.isGraceC2c()).isTrue();
        assertThat(grace.graceC2c()).isEqualTo("Neoverse-V2 CPU (implementer 0x41, part 0xd4f), 1 NVIDIA GPU, 8 NUMA nodes without CPUs for their memory");
        assertThat(grace.gpus()).singleElement().satisfies(gpu -> assertThat(gpu.address()).isEqualTo("0009:01:00.0"));
        assertThat(grace.gpuNicAffinities()).singleElement().satisfies(a -> assertThat(a.pathClass()).isEqualTo(PathClass.NODE));
        assertThat(x86.isGraceC2c()).isFalse();
        assertThat(NodeDiscovery.discover(graviton.root()).isGraceC2c()).as("a Neoverse-V2 without C2C memory nodes").isFalse();
    }

    @Test
    void readsRoceServerAsTheKernelLaysItOut() {
        NodeInventory node = NodeDiscovery.discover(ExampleNodes.write(ExampleNodes.ROCE, dir).root());

        assertThat(node.hostname().orElse("")).isEqualTo("gpu-roce-01");
        assertThat(node.hcas()).extracting(Hca::name).containsExactly("mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4");
        Hca hca = node.hca("mlx5_1").orElseThrow();
        assertThat(hca.hcaType().orElse("")).isEqualTo("MT4125");
        assertThat(hca.firmware().orElse("")).isEqualTo("22.39.1002");
        assertThat(hca.nodeType().orElse("")).isEqualTo("1: CA");
        PciDevice pci = hca.pci().orElseThrow();
        assertThat(pci.address()).isEqualTo("0000:15:00.0");
        assertThat(pci.vendor().orElse("")).isEqualTo("0x15b3");
        assertThat(pci.driver().orElse("")).isEqualTo("mlx5_core");
        assertThat(pci.numaNode().orElse(-2)).isZero();
        assertThat(pci.localCpus().orElse("")).isEqualTo("0-55,112-167");
        assertThat(pci.topologyPath()).containsExactly(
                "pci0000:10", "0000:10:01.0", "0000:11:00.0", "0000:12:02.0", "0000:15:00.0");

        Port port = hca.port(1).orElseThrow();
        assertThat(port.id()).isEqualTo("mlx5_1:1");
        assertThat(port.isActive()).isTrue();
        assertThat(port.isLinkUp()).isTrue();
        assertThat(port.isRoce()).isTrue();
        assertThat(port.state().orElseThrow().id()).isEqualTo(4);
        assertThat(port.rate().orElseThrow().bytesPerSecond()).isEqualTo(25_000_000_000L);
        assertThat(port.gids().entries()).extracting(Gid::index).containsExactly(0, 1, 2, 3);
        assertThat(port.ncclGidIndex()).isEqualTo(OptionalInt.of(3));
        assertThat(port.gids().at(3).orElseThrow().displayAddress()).isEqualTo("10.10.1.11");
        Netdev netdev = port.netdev().orElseThrow();
        assertThat(netdev.name()).isEqualTo("eth1");
        assertThat(netdev.mtu().orElse(0)).isEqualTo(9000);
        assertThat(netdev.isUp()).isTrue();
        assertThat(netdev.pciAddress().orElse("")).isEqualTo("0000:15:00.0");
    }

    @Test
    void findsCharacterDevicesByTheirIbdevNotByTheirNumber() {
        NodeInventory node = NodeDiscovery.discover(ExampleNodes.write(ExampleNodes.ROCE, dir).root());

        Hca hca = node.hca("mlx5_3").orElseThrow();
        assertThat(hca.uverbs().orElseThrow().name()).isEqualTo("uverbs2");
        assertThat(hca.uverbs().orElseThrow().hostPath()).isEqualTo("/dev/infiniband/uverbs2");
        assertThat(hca.charDevices()).extracting(CharDevice::name).containsExactlyInAnyOrder("uverbs2", "umad2", "issm2");
        assertThat(hca.charDevices()).allMatch(CharDevice::present);
        assertThat(node.rdmaCmPresent()).isTrue();
    }

    @Test
    void readsGpusButNotNvSwitches() {
        NodeInventory node = NodeDiscovery.discover(ExampleNodes.write(ExampleNodes.ROCE, dir).root());

        assertThat(node.gpus()).hasSize(8);
        Gpu gpu = node.gpus().getFirst();
        assertThat(gpu.address()).isEqualTo("0000:13:00.0");
        assertThat(gpu.model().orElse("")).isEqualTo("NVIDIA H100 80GB HBM3");
        assertThat(gpu.uuid().orElse("")).startsWith("GPU-");
        assertThat(node.gpus()).extracting(g -> g.pci().numaNodeOrNone()).containsExactly(0, 0, 0, 0, 1, 1, 1, 1);
    }

    @Test
    void readsModulesMemlockAndPeerMemory() {
        NodeInventory node = NodeDiscovery.discover(ExampleNodes.write(ExampleNodes.ROCE, dir).root());

        assertThat(node.modules().isLoaded("mlx5_ib")).isTrue();
        assertThat(node.modules().isLoaded("mlx4_ib")).isFalse();
        assertThat(node.memlock().orElseThrow().isUnlimited()).isTrue();
        assertThat(node.peerMemory()).containsExactly("module nvidia_peermem");
        assertThat(node.kernelRelease().orElse("")).isEqualTo("5.15.0-124-generic");
    }

    @Test
    void infiniBandPortsHaveLidsAndTheirNetdevComesFromThePciFunction() {
        NodeInventory node = NodeDiscovery.discover(ExampleNodes.write(ExampleNodes.INFINIBAND, dir).root());

        assertThat(node.hcas()).hasSize(8);
        Port port = node.hca("mlx5_0").orElseThrow().port(1).orElseThrow();
        assertThat(port.isInfiniBand()).isTrue();
        assertThat(port.lid().orElse(0)).isEqualTo(0x10);
        assertThat(port.smLid().orElse(0)).isEqualTo(1);
        assertThat(port.rate().orElseThrow().width()).isEqualTo("4X NDR");
        assertThat(port.ncclGidIndex()).isEmpty();
        assertThat(port.gids().entries().getFirst().netdev().isKnown()).isFalse();
        assertThat(port.netdev().orElseThrow().name()).isEqualTo("ib0");
    }

    @Test
    void countersAreReadWhenAskedNotAtDiscovery() {
        HostTree tree = ExampleNodes.write(ExampleNodes.ROCE, dir);
        NodeInventory node = NodeDiscovery.discover(tree.root());
        Port port = node.hca("mlx5_2").orElseThrow().port(1).orElseThrow();
        Sysfs sysfs = new Sysfs(tree.root());

        tree.file(tree.portDir("mlx5_2", 1) + "/hw_counters/req_transport_retries_exceeded", "7");

        assertThat(port.hwCounters(sysfs).values()).containsEntry("req_transport_retries_exceeded", 7L);
        assertThat(port.counters(sysfs).values()).containsKeys("port_xmit_data", "symbol_error", "link_downed");
    }

    @Test
    void twelveHcasKeepTheirNames() {
        NodeInventory node = NodeDiscovery.discover(ExampleNodes.write(ExampleNodes.TWELVE_HCAS, dir).root());

        assertThat(node.hcas()).extracting(Hca::name).contains("mlx5_1", "mlx5_10", "mlx5_11").hasSize(12);
    }

    @Test
    void anEmptyRootIsAnEmptyNode() {
        NodeInventory node = NodeDiscovery.discover(dir);

        assertThat(node.hcas()).isEmpty();
        assertThat(node.gpus()).isEmpty();
        assertThat(node.modules().procModules().isKnown()).isFalse();
        assertThat(node.memlock().text()).contains("/proc/self/limits: missing");
    }

    @Test
    void gpuNicAffinityFollowsThePciTree() {
        NodeInventory node = NodeDiscovery.discover(ExampleNodes.write(ExampleNodes.ROCE, dir).root());

        List<GpuNicAffinity> affinities = node.gpuNicAffinities();
        assertThat(affinities).hasSize(8);
        assertThat(affinities).extracting(a -> a.nearest().name())
                .containsExactly("mlx5_1", "mlx5_1", "mlx5_2", "mlx5_2", "mlx5_3", "mlx5_3", "mlx5_4", "mlx5_4");
        assertThat(affinities).extracting(GpuNicAffinity::pathClass).containsOnly(PathClass.PIX);
    }
}
