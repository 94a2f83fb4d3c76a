package io.railyard.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.railyard.testkit.ExampleNodes;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Side by side with the real node_exporter on the same tree: every node_infiniband_* series has its railyard_rdma_* twin. */
class NodeExporterIT {
    private static final Path REPO = Path.of(System.getProperty("railyard.repo", ".."));

    @TempDir
    static Path generated;

    static Stream<Path> trees() {
        ExampleNodes.writeAll(generated);
        List<Path> trees = new ArrayList<>(ExampleNodes.all().keySet().stream().map(generated::resolve).toList());
        trees.add(REPO.resolve("testdata/sysfs-procfs"));
        trees.add(REPO.resolve("testdata/sysfs-node_exporter"));
        return trees.stream();
    }

    @ParameterizedTest
    @MethodSource("trees")
    void everyNodeExporterSeriesHasTheSameValue(Path tree) throws Exception {
        Path nodeExporter = ExternalTool.require("prometheus-node-exporter");
        int port = freePort();
        Process process = new ProcessBuilder(nodeExporter.toString(), "--path.sysfs=" + tree.resolve("sys"),
                "--collector.disable-defaults", "--collector.infiniband", "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new RdmaPortCollector(tree));
        try (MetricsServer railyard = MetricsServer.start(new InetSocketAddress("127.0.0.1", 0), registry)) {
            await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> Exposition.scrape(port).contains("node_infiniband"));
            Map<String, Double> theirs = Exposition.parse(Exposition.scrape(port));
            Map<String, Double> ours = Exposition.parse(Exposition.scrape(railyard.port()));

            List<String> compared = new ArrayList<>();
            theirs.forEach((series, value) -> {
                if (series.startsWith("node_infiniband_")) {
                    String twin = "railyard_rdma_" + series.substring("node_infiniband_".length());
                    assertThat(ours).as("%s for %s", twin, series).containsKey(twin);
                    assertThat(ours.get(twin)).as(twin).isEqualTo(value);
                    compared.add(series);
                }
            });
            assertThat(compared).as("node_exporter's infiniband series on %s", tree).isNotEmpty();
        } finally {
            process.destroy();
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
