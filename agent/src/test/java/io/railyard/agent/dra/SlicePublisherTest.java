package io.railyard.agent.dra;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.railyard.node.NodeDiscovery;
import io.railyard.testkit.ExampleNodes;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SlicePublisherTest {
    @TempDir
    Path dir;

    @Test
    void aPoolOfMoreThan128DevicesIsSplitAndEverySliceCountsThem() {
        List<Device> devices = IntStream.range(0, 300).mapToObj(i -> new DeviceBuilder().withName("mlx5-" + i + "-port1").build()).toList();

        List<ResourceSlice> slices = SlicePublisher.desired("rdma.railyard.io", "node-a", "uid-1", 7, devices);

        assertThat(slices).extracting(s -> s.getSpec().getDevices().size()).containsExactly(128, 128, 44);
        assertThat(slices).allSatisfy(slice -> {
            assertThat(slice.getSpec().getPool().getResourceSliceCount()).isEqualTo(3L);
            assertThat(slice.getSpec().getPool().getGeneration()).isEqualTo(7L);
            assertThat(slice.getSpec().getNodeName()).isEqualTo("node-a");
        });
        assertThat(slices).extracting(s -> s.getMetadata().getName()).containsExactly("node-a-rdma-railyard-io-0", "node-a-rdma-railyard-io-1",
                "node-a-rdma-railyard-io-2");
    }

    @Test
    void aNodeWithoutPortsStillHasOneEmptySlice() {
        assertThat(SlicePublisher.desired("rdma.railyard.io", "node-a", null, 1, List.of())).singleElement()
                .satisfies(slice -> assertThat(slice.getSpec().getDevices()).isEmpty());
    }

    @Test
    void deviceNamesAreDnsLabelsFromHcaAndPort() {
        var node = NodeDiscovery.discover(ExampleNodes.write(ExampleNodes.INFINIBAND, dir.resolve("ib")).root());
        var port = node.hcas().getFirst().ports().getFirst();

        assertThat(DraDevice.nameOf(port)).matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?").isEqualTo(port.hca().replace('_', '-') + "-port1");
        var bond = new io.railyard.node.Port("mlx5_bond_0", 1, port.dir(), port.state(), port.physicalState(), port.rate(), port.linkLayer(),
                port.lid(), port.smLid(), port.gids(), port.netdev());
        assertThat(DraDevice.nameOf(bond)).isEqualTo("mlx5-bond-0-port1");
    }
}
