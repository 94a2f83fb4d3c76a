package io.railyard.cli.up;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.node.NodeDiscovery;
import io.railyard.node.Port;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A sandbox node's own tree: copied with its links, read as the original, a planted fault seen by the agent's reader. */
class SandboxTreeTest {
    private static final Path REPO = Path.of(System.getProperty("railyard.repo", "..")).toAbsolutePath().normalize();
    private static final Path IB_NODE = REPO.resolve("examples/nodes/ib-8gpu");

    @TempDir
    Path dir;

    @Test
    void aCopiedTreeKeepsTheKernelsLinksAndReadsAsTheOriginal() {
        Path root = dir.resolve("root");
        SandboxNodes.copyTree(IB_NODE, root);

        assertThat(root.resolve("sys/class/infiniband/mlx5_0")).isSymbolicLink();
        assertThat(NodeDiscovery.discover(root).ports()).extracting(SandboxTreeTest::describe)
                .isEqualTo(NodeDiscovery.discover(IB_NODE).ports().stream().map(SandboxTreeTest::describe).toList());
    }

    @Test
    void aPortPlantedDownIsDownToTheAgentsReaderAndOnlyInThatNodesTree() {
        Sandbox sandbox = sandboxWithNode("rdma-1");
        String said = PortFault.write(sandbox, "rdma-1", "mlx5_3", 1, true);

        assertThat(said).startsWith("port mlx5_3/1 of rdma-1 is DOWN");
        assertThat(port(sandbox.nodeRoot("rdma-1"), "mlx5_3").stateText()).contains("DOWN");
        assertThat(port(IB_NODE, "mlx5_3").stateText()).contains("ACTIVE");
        PortFault.write(sandbox, "rdma-1", "mlx5_3", 1, false);
        assertThat(port(sandbox.nodeRoot("rdma-1"), "mlx5_3").stateText()).contains("ACTIVE");
    }

    @Test
    void aFaultOnWhatIsNotThereNamesWhatIs() {
        Sandbox sandbox = sandboxWithNode("rdma-0");

        assertThatThrownBy(() -> PortFault.write(sandbox, "rdma-7", "mlx5_0", 1, true)).hasMessageContaining("its nodes are rdma-0 to rdma-0");
        assertThatThrownBy(() -> PortFault.write(sandbox, "rdma-0", "mlx5_9", 1, true))
                .hasMessageContaining("no RDMA device mlx5_9 on rdma-0: it has mlx5_0, mlx5_1");
        assertThatThrownBy(() -> PortFault.write(sandbox, "rdma-0", "mlx5_0", 2, true)).hasMessageContaining("no port 2 on mlx5_0 of rdma-0: it has 1");
        assertThatThrownBy(() -> PortFault.write(new Sandbox(dir.resolve("none")), "rdma-0", "mlx5_0", 1, true))
                .hasMessageContaining("start one with railyard up");
    }

    @Test
    void theShippedExamplesNeedTheirNamespacesClaimsQueuesAndMore() {
        ExampleNeeds needs = ExampleNeeds.of(REPO.resolve("examples/trainingjobs"));

        assertThat(needs.namespaces()).containsExactly("team-a", "training");
        assertThat(needs.claims()).containsExactly("training/sft-data");
        assertThat(needs.volcanoQueues()).as("Volcano's: team-a-gpus is a Kueue queue").containsExactly("finetune", "pretrain", "research");
        assertThat(needs.kueueQueues()).as("Kueue's, with their namespace").containsExactly("team-a/team-a-gpus");
        assertThat(needs.hostPaths()).containsExactly("/mnt/lustre/datasets/pile");
        assertThat(needs.priorityClasses()).containsExactly("training-high");
    }

    private Sandbox sandboxWithNode(String node) {
        Sandbox sandbox = new Sandbox(dir.resolve("up"));
        SandboxNodes.copyTree(IB_NODE, sandbox.nodeRoot(node));
        Properties settings = new Properties();
        settings.setProperty("nodes", "1");
        try {
            Files.createDirectories(sandbox.dir());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        sandbox.writeSettings(settings);
        return sandbox;
    }

    private static Port port(Path root, String hca) {
        return NodeDiscovery.discover(root).ports().stream().filter(port -> port.hca().equals(hca)).findFirst().orElseThrow();
    }

    private static String describe(Port port) {
        return port.hca() + "/" + port.number() + " " + port.stateText() + " " + port.linkLayer();
    }
}
