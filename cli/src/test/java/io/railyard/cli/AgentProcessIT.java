package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.railyard.testkit.ExampleNodes;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The agent as a real process: it serves its socket, and SIGTERM makes it remove the socket and exit 0. */
class AgentProcessIT {
    @TempDir
    Path dir;

    @Test
    void sigtermRemovesTheSocketAndExitsZero() throws Exception {
        Path root = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("host")).root();
        Path plugins = Files.createDirectories(dir.resolve("device-plugins"));
        Path socket = plugins.resolve("railyard-rdma-rdma.sock");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process agent = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"), "io.railyard.cli.Railyard",
                "agent", "--root", root.toString(), "--device-plugin-dir", plugins.toString(), "--no-kubernetes",
                "--health-address", "127.0.0.1:0"))
                .redirectErrorStream(true).redirectOutput(dir.resolve("agent.log").toFile()).start();
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(socket));

            agent.destroy(); // SIGTERM

            assertThat(agent.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(agent.exitValue()).isZero();
            assertThat(socket).doesNotExist();
        } finally {
            agent.destroyForcibly();
        }
    }

    @Test
    void withoutTheDevicePluginItServesHealthAndMetricsAndNoSocket() throws Exception {
        Path root = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("host")).root();
        Path plugins = Files.createDirectories(dir.resolve("device-plugins"));
        int health;
        int metrics;
        try (ServerSocket a = new ServerSocket(0); ServerSocket b = new ServerSocket(0)) {
            health = a.getLocalPort();
            metrics = b.getLocalPort();
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        Process agent = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"), "io.railyard.cli.Railyard",
                "agent", "--root", root.toString(), "--device-plugin-dir", plugins.toString(), "--no-kubernetes", "--no-device-plugin",
                "--health-address", "127.0.0.1:" + health, "--metrics-address", "127.0.0.1:" + metrics))
                .redirectErrorStream(true).redirectOutput(dir.resolve("agent.log").toFile()).start();
        HttpClient http = HttpClient.newHttpClient();
        try {
            await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
                var healthz = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + health + "/healthz")).build(),
                        HttpResponse.BodyHandlers.ofString());
                var scrape = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metrics + "/metrics")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(healthz.statusCode()).isEqualTo(200);
                assertThat(scrape.body()).contains("railyard_rdma_state_id").doesNotContain("railyard_device_plugin_registered");
            });
            assertThat(plugins).isEmptyDirectory();
            agent.destroy();
            assertThat(agent.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(agent.exitValue()).isZero();
        } finally {
            agent.destroyForcibly();
        }
    }

    @Test
    void asADraDriverItPublishesSlicesLabelsTheNodeServesItsSocketsAndRemovesThemOnSigterm() throws Exception {
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        server.init();
        try (KubernetesClient client = server.createClient()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-node-1").endMetadata().build()).create();
            Path root = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("host")).root();
            Path plugins = Files.createDirectories(dir.resolve("plugins"));
            Path registry = Files.createDirectories(dir.resolve("plugins_registry"));
            int health;
            try (ServerSocket socket = new ServerSocket(0)) {
                health = socket.getLocalPort();
            }
            String java = ProcessHandle.current().info().command().orElse("java");
            Process agent = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"), "io.railyard.cli.Railyard",
                    "agent", "--root", root.toString(), "--no-device-plugin", "--dra", "--node-name", "gpu-node-1",
                    "--kubeconfig", MockKubeconfig.write(dir, client).toString(), "--kubelet-plugins-dir", plugins.toString(),
                    "--plugins-registry-dir", registry.toString(), "--cdi-dir", dir.resolve("cdi").toString(), "--health-address", "127.0.0.1:" + health))
                    .redirectErrorStream(true).redirectOutput(dir.resolve("agent.log").toFile()).start();
            HttpClient http = HttpClient.newHttpClient();
            try {
                await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> {
                    assertThat(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + health + "/healthz")).build(),
                            HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
                    assertThat(client.resources(ResourceSlice.class).list().getItems()).singleElement()
                            .satisfies(slice -> assertThat(slice.getSpec().getDevices()).hasSize(4));
                    // the labels go through the same --kubeconfig as the slices
                    assertThat(client.nodes().withName("gpu-node-1").get().getMetadata().getLabels()).containsEntry("railyard.io/rdma", "true");
                });
                assertThat(plugins.resolve("rdma.railyard.io/dra.sock")).exists();
                assertThat(registry.resolve("rdma.railyard.io-reg.sock")).exists();

                agent.destroy(); // SIGTERM

                assertThat(agent.waitFor(10, TimeUnit.SECONDS)).isTrue();
                assertThat(agent.exitValue()).isZero();
                assertThat(plugins.resolve("rdma.railyard.io/dra.sock")).doesNotExist();
                assertThat(registry.resolve("rdma.railyard.io-reg.sock")).doesNotExist();
            } finally {
                agent.destroyForcibly();
            }
        } finally {
            server.destroy();
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "hello|the file should be a mapping with a resources list (resources: [{name: rdma/rdma}]) and optionally nodeHealth and metrics",
        "[a, b]|the file should be a mapping with a resources list (resources: [{name: rdma/rdma}]) and optionally nodeHealth and metrics",
        "resources: 5|resources should be a list",
        "'resources: [{name: rdma/x, mode: weird}]'|resources[0].mode is 'weird': use one of exclusive, shared",
        "'resources: [{name: rdma/x, slotsPerPort: many}]'|resources[0].slotsPerPort is 'many': use a whole number",
        "':\n  -: ['|not valid YAML at line 1: while parsing a block mapping",
    })
    void configThatIsNotTheAgentsIsOneLineNamingTheKey(String yaml, String message) throws Exception {
        Path config = Files.writeString(dir.resolve("agent.yaml"), yaml.replace("\\n", "\n"));
        Path root = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("host")).root();

        CommandRun run = CommandRun.of("agent", "--root", root.toString(), "--config", config.toString(),
                "--device-plugin-dir", dir.toString(), "--no-kubernetes");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("agent: --config " + config + ": " + message + "\n");
    }

    @Test
    void withoutTheKubeletsDirectoryItIsOneLineAndExitTwo() throws Exception {
        Path root = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("host")).root();

        CommandRun run = CommandRun.of("agent", "--root", root.toString(), "--device-plugin-dir", dir.resolve("missing").toString(),
                "--no-kubernetes");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("agent: --device-plugin-dir " + dir.resolve("missing")
                + " is not a directory: mount the kubelet's device plugin directory (/var/lib/kubelet/device-plugins)\n");
    }

    @Test
    void asADraDriverWithoutTheKubeletsPluginDirectoriesItIsOneLineAndExitTwo() throws Exception {
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        server.init();
        try (KubernetesClient client = server.createClient()) {
            Path root = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("host")).root();

            CommandRun run = CommandRun.of("agent", "--root", root.toString(), "--no-device-plugin", "--dra", "--node-name", "gpu-node-1",
                    "--kubeconfig", MockKubeconfig.write(dir, client).toString(), "--kubelet-plugins-dir", dir.resolve("missing").toString(),
                    "--plugins-registry-dir", dir.resolve("missing-registry").toString());

            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.err()).isEqualTo("agent: " + dir.resolve("missing") + " is not a directory: mount the kubelet's plugins and"
                    + " plugins_registry directories (--kubelet-plugins-dir, --plugins-registry-dir)\n");
        } finally {
            server.destroy();
        }
    }

    @Test
    void anAddressItCannotListenOnIsOneLineNamingTheOption() throws Exception {
        Path root = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("host")).root();
        Path plugins = Files.createDirectories(dir.resolve("device-plugins"));
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CommandRun agent = CommandRun.of("agent", "--root", root.toString(), "--device-plugin-dir", plugins.toString(), "--no-kubernetes",
                    "--health-address", "127.0.0.1:" + taken.getLocalPort());
            CommandRun exporter = CommandRun.of("exporter", "--root", root.toString(), "--listen", "127.0.0.1:" + taken.getLocalPort());

            assertThat(agent.exitCode()).isEqualTo(2);
            assertThat(agent.err()).isEqualTo("agent: --health-address 127.0.0.1:" + taken.getLocalPort()
                    + " cannot be listened on: Address already in use (give a free port, and an address of this host or 0.0.0.0)\n");
            assertThat(plugins).isEmptyDirectory();
            assertThat(exporter.exitCode()).isEqualTo(2);
            assertThat(exporter.err()).startsWith("exporter: --listen 127.0.0.1:" + taken.getLocalPort() + " cannot be listened on: ").hasLineCount(1);
        }
    }

    @Test
    void malformedConfigIsAOneLineError() throws Exception {
        Path config = Files.writeString(dir.resolve("agent.yaml"), "resources:\n  - nmae: rdma/rdma\n");
        Path root = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("host")).root();

        CommandRun run = CommandRun.of("agent", "--root", root.toString(), "--config", config.toString(),
                "--device-plugin-dir", dir.toString(), "--no-kubernetes");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).startsWith("agent: --config " + config + ": unknown key 'nmae' at resources[0]").hasLineCount(1);
    }
}
