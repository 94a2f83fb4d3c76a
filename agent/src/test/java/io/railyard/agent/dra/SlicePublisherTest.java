package io.railyard.agent.dra;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.railyard.node.NodeDiscovery;
import io.railyard.testkit.ExampleNodes;
import io.railyard.agent.AgentConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
                port.lid(), port.smLid(), port.gids(), port.netdev(), port.trafficClass(), port.pkeys());
        assertThat(DraDevice.nameOf(bond)).isEqualTo("mlx5-bond-0-port1");
    }

    /** Real sysfs trees (node_exporter's and procfs' test data): mlx4, mlx5, hfi1 and i40iw ports as the API accepts them. */
    @ParameterizedTest
    @ValueSource(strings = {"testdata/sysfs-node_exporter", "testdata/sysfs-procfs"})
    void realTreesGiveDevicesTheApiAccepts(String tree) {
        Path root = Path.of(System.getProperty("railyard.repo", "..")).resolve(tree);
        var node = NodeDiscovery.discover(root);
        List<DraDevice> drivers = DraDevice.forNode(node, AgentConfig.defaults());

        List<Device> devices = SlicePublisher.devices(drivers, Map.of());

        assertThat(devices).hasSize(node.hcas().stream().mapToInt(h -> h.ports().size()).sum()).isNotEmpty();
        assertThat(devices).extracting(Device::getName).doesNotHaveDuplicates()
                .allSatisfy(name -> assertThat(name).hasSizeLessThanOrEqualTo(63).matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?"));
        assertThat(devices).allSatisfy(device -> device.getAttributes().forEach((name, value) -> {
            assertThat(name).matches("(resource\\.kubernetes\\.io/)?[A-Za-z][A-Za-z0-9_]{0,31}");
            long kinds = java.util.stream.Stream.of(value.getString(), value.getInt(), value.getBool(), value.getVersion()).filter(v -> v != null).count();
            assertThat(kinds).as(name).isEqualTo(1);
            if (value.getString() != null) {
                assertThat(value.getString()).as(name).hasSizeLessThanOrEqualTo(64);
            }
            if (value.getVersion() != null) {
                assertThat(value.getVersion()).as(name).matches("\\d+\\.\\d+\\.\\d+");
            }
        }));
        assertThat(devices).allSatisfy(device -> assertThat(device.getAttributes()).containsKeys("ibDevice", "port", "healthy"));
    }
}
