package io.railyard.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One odd file makes one attribute unknown, with the file and the reason; discovery goes on. */
class BrokenTreeTest {
    @TempDir
    Path dir;
    HostTree tree;

    @BeforeEach
    void writeHealthyNode() {
        tree = ExampleNodes.write(ExampleNodes.ROCE, dir);
    }

    private Port port(String hca) {
        return NodeDiscovery.discover(tree.root()).hca(hca).orElseThrow().port(1).orElseThrow();
    }

    @Test
    void malformedStateIsUnknownWithTheFileNamed() {
        tree.file(tree.portDir("mlx5_2", 1) + "/state", "ACTIVE");

        Port port = port("mlx5_2");

        assertThat(port.state().isKnown()).isFalse();
        assertThat(port.state().text())
                .contains("/sys/class/infiniband/mlx5_2/ports/1/state: malformed 'ACTIVE'");
        assertThat(port.isActive()).isFalse();
        assertThat(port.physicalState().isKnown()).isTrue();
        assertThat(port("mlx5_1").isActive()).isTrue();
    }

    @Test
    void missingRateIsUnknownAndTheRestIsRead() {
        tree.remove(tree.portDir("mlx5_1", 1) + "/rate");

        Port port = port("mlx5_1");

        assertThat(port.rate().text()).contains("ports/1/rate: missing");
        assertThat(port.isActive()).isTrue();
        assertThat(port.ncclGidIndex()).hasValue(3);
    }

    @Test
    void garbageRateAndMtuAreUnknown() {
        tree.file(tree.portDir("mlx5_1", 1) + "/rate", "fast");
        tree.file("sys/class/net/eth1/mtu", "nine thousand");

        Port port = port("mlx5_1");

        assertThat(port.rate().text()).contains("malformed 'fast'");
        assertThat(port.netdev().orElseThrow().mtu().text()).contains("/mtu: malformed 'nine thousand'");
    }

    @Test
    void aDirectoryWhereAFileShouldBeIsUnreadable() throws Exception {
        String linkLayer = tree.portDir("mlx5_3", 1) + "/link_layer";
        tree.remove(linkLayer);
        Files.createDirectories(tree.root().resolve(linkLayer));

        Port port = port("mlx5_3");

        assertThat(port.linkLayer().text()).contains("link_layer: unreadable");
        assertThat(port.isRoce()).isFalse();
    }

    @Test
    void danglingDeviceLinkLeavesPciUnknownButPortsRead() {
        tree.remove("sys/devices/pci0000:b0/0000:b0:01.0/0000:b1:00.0/0000:b2:02.0/0000:b5:00.0/infiniband/mlx5_4/device");
        tree.rawLink("sys/devices/pci0000:b0/0000:b0:01.0/0000:b1:00.0/0000:b2:02.0/0000:b5:00.0/infiniband/mlx5_4/device",
                "../../../0000:ff:00.0");

        Hca hca = NodeDiscovery.discover(tree.root()).hca("mlx5_4").orElseThrow();

        assertThat(hca.pci().text()).contains("mlx5_4/device: missing");
        assertThat(hca.ports()).hasSize(1);
        assertThat(hca.port(1).orElseThrow().isActive()).isTrue();
    }

    @Test
    void gidWithoutTypeKeepsTheAddressAndIsNotPickedForNccl() {
        tree.remove(tree.portDir("mlx5_1", 1) + "/gid_attrs/types/3");

        Port port = port("mlx5_1");

        assertThat(port.gids().at(3).orElseThrow().type().text()).contains("gid_attrs/types/3: missing");
        assertThat(port.ncclGidIndex()).isEmpty();
    }

    @Test
    void oddEntriesInClassDirectoriesAreIgnored() {
        tree.file(tree.portDir("mlx5_1", 1).replace("/ports/1", "/ports/README"), "not a port");
        tree.file("sys/class/infiniband_verbs/uverbsX/ibdev", "mlx5_1");
        tree.file("sys/class/infiniband_verbs/uverbs9/ibdev", "");

        NodeInventory node = NodeDiscovery.discover(tree.root());

        assertThat(node.hca("mlx5_1").orElseThrow().ports()).hasSize(1);
        assertThat(node.hca("mlx5_1").orElseThrow().charDevices()).extracting(CharDevice::name)
                .containsExactlyInAnyOrder("uverbs0", "umad0", "issm0");
    }

    @Test
    void malformedProcFilesAreUnknown() {
        tree.rawFile("proc/self/limits", "Limit Soft Hard\nMax locked memory     lots\n");
        tree.remove("proc/modules");

        NodeInventory node = NodeDiscovery.discover(tree.root());

        assertThat(node.memlock().text()).contains("/proc/self/limits: malformed");
        assertThat(node.modules().procModules().text()).contains("/proc/modules: missing");
        assertThat(node.hcas()).hasSize(4);
    }

    @Test
    void missingGpuInformationLeavesModelUnknown() {
        tree.remove("proc/driver/nvidia/gpus");

        Gpu gpu = NodeDiscovery.discover(tree.root()).gpus().getFirst();

        assertThat(gpu.model().text()).contains("/proc/driver/nvidia/gpus/0000:13:00.0/information: missing");
        assertThat(gpu.pci().numaNodeOrNone()).isZero();
    }
}
