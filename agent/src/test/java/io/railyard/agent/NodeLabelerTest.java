package io.railyard.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.railyard.node.NodeDiscovery;
import io.railyard.node.NodeInventory;
import io.railyard.testkit.ExampleNodes;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Node labels through the fabric8 CRUD mock API server (no real API server can be had in tests). */
@EnableKubernetesMockClient(crud = true)
class NodeLabelerTest {
    static KubernetesClient client;

    @TempDir
    Path dir;

    @Test
    void labelsDescribeTheAdvertisedPorts() {
        NodeInventory ib = NodeDiscovery.discover(ExampleNodes.write(ExampleNodes.INFINIBAND, dir).root());

        assertThat(NodeLabeler.labels(ib, ib.ports())).containsExactly(
                Map.entry("railyard.io/rdma", "true"),
                Map.entry("railyard.io/rdma.link-layer", "InfiniBand"),
                Map.entry("railyard.io/rdma.rate-gbps", "400"),
                Map.entry("railyard.io/rdma.ports", "8"),
                Map.entry("railyard.io/gpus", "8"));
        assertThat(NodeLabeler.labels(ib, java.util.List.of())).containsEntry("railyard.io/rdma", "false")
                .doesNotContainKey("railyard.io/rdma.link-layer");
    }

    @Test
    void theTrafficClassAndTheSharedPartitionsAreLabelsTooWhereTheHostHasThem() {
        var roceTree = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("roce"));
        NodeInventory plain = NodeDiscovery.discover(roceTree.root());
        java.util.List.of("mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4").forEach(hca -> roceTree.trafficClass(hca, 1, "Global tclass=106"));
        NodeInventory lossless = NodeDiscovery.discover(roceTree.root());
        var ibTree = ExampleNodes.write(ExampleNodes.INFINIBAND, dir.resolve("ib"));
        for (int hca = 0; hca < 8; hca++) {
            ibTree.pkeys("mlx5_" + hca, 1, 0xffff, hca < 4 ? 0x8001 : 0x8002);
        }
        NodeInventory partitioned = NodeDiscovery.discover(ibTree.root());

        assertThat(NodeLabeler.labels(plain, plain.ports())).containsEntry("railyard.io/rdma.traffic-class", "none").doesNotContainKey("railyard.io/rdma.pkeys");
        assertThat(NodeLabeler.labels(lossless, lossless.ports())).containsEntry("railyard.io/rdma.traffic-class", "106");
        assertThat(NodeLabeler.labels(partitioned, partitioned.ports())).containsEntry("railyard.io/rdma.pkeys", "0x7fff")
                .doesNotContainKey("railyard.io/rdma.traffic-class");
        assertThat(NodeLabeler.labels(partitioned, partitioned.ports().subList(0, 4))).containsEntry("railyard.io/rdma.pkeys", "0x7fff.0x0001");
    }

    @Test
    void patchesOnlyItsOwnNodeAndKeepsOtherLabels() {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-1").addToLabels("zone", "a").endMetadata().build()).create();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-2").endMetadata().build()).create();
        NodeInventory roce = NodeDiscovery.discover(ExampleNodes.write(ExampleNodes.ROCE, dir).root());

        NodeLabeler.apply(client, "gpu-1", NodeLabeler.labels(roce, roce.ports()));

        assertThat(client.nodes().withName("gpu-1").get().getMetadata().getLabels())
                .containsEntry("zone", "a")
                .containsEntry("railyard.io/rdma.link-layer", "Ethernet")
                .containsEntry("railyard.io/rdma.rate-gbps", "200")
                .containsEntry("railyard.io/rdma.ports", "4");
        assertThat(client.nodes().withName("gpu-2").get().getMetadata().getLabels()).isNullOrEmpty();
        assertThatThrownBy(() -> NodeLabeler.apply(client, "gpu-9", Map.of("railyard.io/rdma", "true")))
                .isInstanceOf(KubernetesClientException.class).hasMessageContaining("gpu-9");
    }
}
