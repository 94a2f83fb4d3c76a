package io.railyard.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NcclEnvironmentTest {
    @TempDir
    Path dir;

    @Test
    void roceAgreeingPortsGetExactHcaListAndTheGidIndex() {
        NodeInventory node = NodeDiscovery.discover(ExampleNodes.write(ExampleNodes.ROCE, dir).root());

        Map<String, String> env = NcclEnvironment.forPorts(node.ports().subList(0, 2));

        assertThat(env).containsExactly(
                Map.entry("NCCL_IB_HCA", "=mlx5_1:1,mlx5_2:1"),
                Map.entry("NCCL_IB_GID_INDEX", "3"));
    }

    @Test
    void roceDisagreeingPortsLetNcclChooseIpv4RoceV2() {
        HostTree tree = ExampleNodes.write(ExampleNodes.ROCE, dir);
        String port = tree.portDir("mlx5_2", 1);
        tree.file(port + "/gids/3", "0000:0000:0000:0000:0000:0000:0000:0000");
        tree.gid("mlx5_2", 1, 5, "0000:0000:0000:0000:0000:ffff:0a0a:020b", "RoCE v2", "eth2");
        NodeInventory node = NodeDiscovery.discover(tree.root());

        Map<String, String> env = NcclEnvironment.forPorts(node.ports().subList(0, 2));

        assertThat(env).containsExactly(
                Map.entry("NCCL_IB_HCA", "=mlx5_1:1,mlx5_2:1"),
                Map.entry("NCCL_IB_ROCE_VERSION_NUM", "2"),
                Map.entry("NCCL_IB_ADDR_FAMILY", "AF_INET"));
    }

    @Test
    void infiniBandNeedsNoGidVariables() {
        NodeInventory node = NodeDiscovery.discover(ExampleNodes.write(ExampleNodes.INFINIBAND, dir).root());

        assertThat(NcclEnvironment.forPorts(node.ports()))
                .containsExactly(Map.entry("NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1"));
    }

    @Test
    void theHcaListIsInDeviceOrderWhateverOrderThePortsCameIn() {
        NodeInventory node = NodeDiscovery.discover(ExampleNodes.write(ExampleNodes.TWELVE_HCAS, dir).root());
        List<Port> shuffled = new ArrayList<>(node.ports());
        Collections.reverse(shuffled);

        assertThat(NcclEnvironment.forPorts(shuffled)).containsEntry("NCCL_IB_HCA",
                "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1,mlx5_8:1,mlx5_9:1,mlx5_10:1,mlx5_11:1");
    }
}
