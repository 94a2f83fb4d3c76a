package io.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.api.TrainingJob;
import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/** The node agent against the real API server as its ServiceAccount: labels, RdmaPortDown, and the gang moving off the node. */
@ExtendWith(RealCluster.class)
@Order(4)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AgentIT {
    private static final String NODE = "agent-rdma-1";

    private Installation railyard;
    private KubernetesClient client;
    private String namespace;
    private HostTree tree;
    private RailyardProcess agent;

    @BeforeAll
    void agentOnItsNode(Installation railyard) throws IOException {
        this.railyard = railyard;
        this.client = railyard.cluster.admin;
        this.namespace = railyard.jobNamespace("agent");
        KwokNodes.rdma(client, NODE, "agent");
        KwokNodes.rdma(client, "agent-rdma-2", "agent");
        Path root = Files.createDirectories(ControlPlane.REPO.resolve("e2e/target/nodes")).resolve(NODE);
        tree = ExampleNodes.write(ExampleNodes.ROCE, root);
        agent = railyard.agent(NODE, root);
    }

    @AfterAll
    void stopAgent() {
        agent.close();
    }

    @Test
    void aPortDownTurnsRdmaPortDownTrueWithinTwoSecondsAndTheGangIsRecreatedOffTheNode() throws IOException {
        Awaitility.await("the agent labels " + NODE).atMost(Duration.ofSeconds(60))
                .until(() -> client.nodes().withName(NODE).get().getMetadata().getLabels(), labels -> labels.containsKey("railyard.io/rdma.ports"));
        assertThat(client.nodes().withName(NODE).get().getMetadata().getLabels()).containsEntry("railyard.io/rdma.link-layer", "Ethernet");

        String job = Jobs.yaml(namespace, "moves", 2, "agent").replace("backoffLimit: 2", "backoffLimit: 2\n    restartStrategy: Recreate"
                + "\n    nodeExclusionSeconds: 5");
        railyard.submit(job);
        assertThat(runningNodes()).isEqualTo(Set.of(NODE, "agent-rdma-2"));
        KwokNodes.rdma(client, "agent-rdma-3", "agent");

        Files.writeString(tree.root().resolve(tree.portDir("mlx5_1", 1)).resolve("state"), "1: DOWN\n");
        Awaitility.await("RdmaPortDown True on " + NODE).atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(50))
                .until(() -> portDown(client.nodes().withName(NODE).get()), Optional::isPresent);

        Awaitility.await("the job excludes " + NODE).atMost(Duration.ofSeconds(60)).until(() -> excluded("moves"), nodes -> nodes.contains(NODE));
        assertThat(runningNodes()).isEqualTo(Set.of("agent-rdma-2", "agent-rdma-3"));
        assertThat(Jobs.get(client, namespace, "moves").getStatus().restarts).isEqualTo(1);

        // the exclusion runs out on the operator's real clock though the port stays down: the node is no longer avoided
        Instant since = Instant.parse(Jobs.get(client, namespace, "moves").getStatus().excludedNodes.getFirst().since);
        Awaitility.await("the exclusion of " + NODE + " ends 5 s after " + since).atMost(Duration.ofSeconds(30)).until(() -> excluded("moves"), List::isEmpty);
        assertThat(Instant.now()).as("not before it was due").isAfterOrEqualTo(since.plusSeconds(5));
        assertThat(portDown(client.nodes().withName(NODE).get())).isPresent();
        assertThat(Jobs.get(client, namespace, "moves").getStatus().restarts).as("and no restart for it").isEqualTo(1);
    }

    private Set<String> runningNodes() {
        return Awaitility.await("2 pods Running").atMost(Duration.ofSeconds(90)).until(() -> {
            List<Pod> pods = Jobs.pods(client, namespace, "moves");
            return pods.size() == 2 && pods.stream().allMatch(p -> "Running".equals(p.getStatus().getPhase())
                    && p.getMetadata().getDeletionTimestamp() == null)
                    ? pods.stream().map(p -> p.getSpec().getNodeName()).collect(Collectors.toSet()) : Set.<String>of();
        }, nodes -> nodes.size() == 2);
    }

    private List<String> excluded(String name) {
        TrainingJob current = Jobs.get(client, namespace, name);
        return current.getStatus() == null || current.getStatus().excludedNodes == null ? List.of()
                : current.getStatus().excludedNodes.stream().map(e -> e.node).toList();
    }

    private static Optional<NodeCondition> portDown(Node node) {
        return node.getStatus().getConditions().stream().filter(c -> c.getType().equals("RdmaPortDown") && c.getStatus().equals("True")).findFirst();
    }
}
