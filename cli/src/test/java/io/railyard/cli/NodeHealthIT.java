package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent as a process on a testkit tree, writing its Node's RDMA conditions to the fabric8 CRUD mock API server. The
 * mock takes no strategic merge patch (415) and merges no list by key: {@link ConditionMergingDispatcher} merges the
 * patch's conditions by type, as a real API server does, and the tests read what the agent sent, request by request,
 * besides the Node it stored.
 */
class NodeHealthIT {
    private static final String NODE = "gpu-ib-01";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** Kept across the API server's restart in one test: what the agent sent to either. */
    private final ConditionMergingDispatcher dispatcher = new ConditionMergingDispatcher();
    private final List<ConditionMergingDispatcher.Sent> statusPatches = dispatcher.statusPatches();
    private KubernetesMockServer server;
    private KubernetesClient client;
    private Process agent;

    /** The CRUD mock, recording every patch of the Node's status on its way in. */
    private void startServer(int port) throws Exception {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
        server.init(InetAddress.getLoopbackAddress(), port);
        client = server.createClient();
        if (client.nodes().withName(NODE).get() != null) {
            return; // the same store behind a restarted server
        }
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().withNewStatus()
                .addNewCondition().withType("Ready").withStatus("True").withReason("KubeletReady").endCondition()
                .addNewCondition().withType("GpuXidErrors").withStatus("False").withReason("NoXid").endCondition()
                .endStatus().build()).create();
    }

    private HostTree startAgent(String nodeHealth) throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        startServer(port);
        HostTree tree = ExampleNodes.write(ExampleNodes.INFINIBAND, dir.resolve("host"));
        Path config = Files.writeString(dir.resolve("agent.yaml"), "resources: [{name: rdma/ib}]\nnodeHealth: " + nodeHealth + "\n");
        String java = ProcessHandle.current().info().command().orElse("java");
        agent = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"), "io.railyard.cli.Railyard", "agent",
                "--root", tree.root().toString(), "--no-device-plugin", "--node-name", NODE, "--config", config.toString(),
                "--kubeconfig", MockKubeconfig.write(dir, client).toString(), "--poll-interval-ms", "100", "--health-address", "127.0.0.1:0"))
                .redirectErrorStream(true).redirectOutput(dir.resolve("agent.log").toFile()).start();
        return tree;
    }

    @AfterEach
    void stop() throws Exception {
        if (agent != null) {
            agent.destroy();
            agent.waitFor(10, TimeUnit.SECONDS);
            agent.destroyForcibly();
        }
        if (server != null) {
            server.destroy();
        }
    }

    /** The agent's conditions as its last status patch sent them. */
    private JsonNode lastSent(String type) throws Exception {
        assertThat(statusPatches).as("status patches").isNotEmpty();
        ConditionMergingDispatcher.Sent last = statusPatches.getLast();
        assertThat(last.contentType()).startsWith("application/strategic-merge-patch+json");
        JsonNode conditions = JSON.readTree(last.body()).path("status").path("conditions");
        assertThat(conditions).extracting(c -> c.path("type").asText())
                .containsExactly("RdmaPortDown", "RdmaLinkFlapping", "RdmaPortErrors", "RdmaDeviceMissing");
        for (JsonNode condition : conditions) {
            if (condition.path("type").asText().equals(type)) {
                return condition;
            }
        }
        throw new AssertionError(type + " not sent");
    }

    private void othersUntouched() {
        Node node = client.nodes().withName(NODE).get();
        assertThat(node.getStatus().getConditions()).extracting(NodeCondition::getType).as("the agent's, stored beside the others")
                .contains("RdmaPortDown", "RdmaLinkFlapping", "RdmaPortErrors", "RdmaDeviceMissing");
        assertThat(node.getStatus().getConditions()).filteredOn(c -> c.getType().equals("Ready"))
                .allSatisfy(c -> assertThat(c.getStatus()).isEqualTo("True")).isNotEmpty();
        assertThat(node.getStatus().getConditions()).extracting(NodeCondition::getType).contains("GpuXidErrors");
    }

    private List<io.fabric8.kubernetes.api.model.Taint> taints() {
        Node node = client.nodes().withName(NODE).get();
        return node.getSpec() == null || node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints();
    }

    private static void setPort(HostTree tree, String hca, String state, String physical) {
        tree.file(tree.portDir(hca, 1) + "/state", state);
        tree.file(tree.portDir(hca, 1) + "/phys_state", physical);
    }

    @Test
    void aPortDownIsOnTheNodeWithinSecondsAndClearsAfterTheStickyWindowLeavingOthersConditionsAlone() throws Exception {
        HostTree tree = startAgent("{stickySeconds: 2}");
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(lastSent("RdmaPortDown").path("status").asText()).isEqualTo("False"));

        setPort(tree, "mlx5_3", "1: DOWN", "2: Polling");

        // the device plugin polls every second; bench/node-health.sh measures the latency (p99 under 1 s), this bound
        // only leaves room for a loaded CI machine
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
            JsonNode down = lastSent("RdmaPortDown");
            assertThat(down.path("status").asText()).isEqualTo("True");
            assertThat(down.path("reason").asText()).isEqualTo("PortNotActive");
            assertThat(down.path("message").asText()).startsWith("mlx5_3 port 1: DOWN/Polling since ");
        });
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(client.v1().events().inNamespace("default").list().getItems())
                .anySatisfy(event -> {
                    assertThat(event.getInvolvedObject().getKind()).isEqualTo("Node");
                    assertThat(event.getReason()).isEqualTo("RdmaPortDown");
                    assertThat(event.getType()).isEqualTo("Warning");
                }));
        othersUntouched();

        setPort(tree, "mlx5_3", "4: ACTIVE", "5: LinkUp");

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(lastSent("RdmaPortDown").path("status").asText()).isEqualTo("False"));
        othersUntouched();
        assertThat(taints()).as("no taint unless enabled").isEmpty();
    }

    @Test
    void flapsErrorsAndAMissingHcaEachHaveTheirConditionAndTheTaintFollowsWhenEnabled() throws Exception {
        HostTree tree = startAgent("{stickySeconds: 60, flapping: {transitions: 3, windowSeconds: 60}, taint: {enabled: true, effect: NoExecute}, "
                + "countersSeconds: 5}");
        await().atMost(Duration.ofSeconds(30)).until(() -> !statusPatches.isEmpty());

        for (int flap = 0; flap < 3; flap++) {
            setPort(tree, "mlx5_1", "1: DOWN", "2: Polling");
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(lastSent("RdmaPortDown").path("message").asText())
                    .startsWith("mlx5_1 port 1: DOWN/Polling").doesNotContain("clear since"));
            setPort(tree, "mlx5_1", "4: ACTIVE", "5: LinkUp");
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(lastSent("RdmaPortDown").path("message").asText())
                    .contains("clear since"));
        }
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(lastSent("RdmaLinkFlapping").path("message").asText())
                .isEqualTo("mlx5_1 port 1: down and up 3 times in 60 s"));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(taints())
                .singleElement().satisfies(taint -> {
                    assertThat(taint.getKey()).isEqualTo("railyard.io/rdma-unhealthy");
                    assertThat(taint.getEffect()).isEqualTo("NoExecute");
                }));

        tree.file(tree.portDir("mlx5_2", 1) + "/counters/symbol_error", "4000");
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(lastSent("RdmaPortErrors").path("message").asText())
                .startsWith("mlx5_2 port 1: symbol_error +"));

        tree.remove("sys/class/infiniband/mlx5_6"); // the ports' directories are looked for every 10 s
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(lastSent("RdmaDeviceMissing").path("message").asText())
                .startsWith("mlx5_6 port 1: gone since "));
        othersUntouched();
    }

    @Test
    void aChangeWhileTheApiServerIsDownArrivesWhenItIsBack() throws Exception {
        HostTree tree = startAgent("{stickySeconds: 60}");
        await().atMost(Duration.ofSeconds(30)).until(() -> !statusPatches.isEmpty());
        int port = server.getPort();
        server.destroy();

        setPort(tree, "mlx5_4", "1: DOWN", "3: Disabled");
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.readString(dir.resolve("agent.log")).contains("cannot write the RDMA conditions"));
        startServer(port);

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(lastSent("RdmaPortDown").path("message").asText())
                .startsWith("mlx5_4 port 1: DOWN/Disabled since "));
        assertThat(agent.isAlive()).isTrue();
    }

    @Test
    void anApiServerThatRefusesIsAskedLessAndLessOftenAndGetsTheChangeWhenItAnswers() throws Exception {
        HostTree tree = startAgent("{stickySeconds: 60}");
        await().atMost(Duration.ofSeconds(30)).until(() -> !statusPatches.isEmpty());
        dispatcher.refuseStatusPatches(true);
        int before = statusPatches.size();

        setPort(tree, "mlx5_4", "1: DOWN", "3: Disabled");
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.readString(dir.resolve("agent.log")).contains("cannot write the RDMA conditions"));
        await().pollDelay(Duration.ofSeconds(7)).until(() -> true);
        // polls every 100 ms; a retry every poll would be some 70 patches, waiting 2 s, then 4 s, ... is 3 or 4
        assertThat(statusPatches.size() - before).isBetween(2, 5);

        dispatcher.refuseStatusPatches(false);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(client.nodes().withName(NODE).get().getStatus().getConditions())
                .filteredOn(c -> c.getType().equals("RdmaPortDown")).singleElement().satisfies(c -> assertThat(c.getStatus()).isEqualTo("True")));
    }
}
