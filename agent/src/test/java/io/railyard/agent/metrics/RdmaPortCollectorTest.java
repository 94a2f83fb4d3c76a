package io.railyard.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The collector keeps the port files open between scrapes: what changes on the host must still show in each scrape. */
class RdmaPortCollectorTest {
    private static final String TRANSMITTED = "railyard_rdma_port_data_transmitted_bytes_total[device=mlx5_1, port=1]";

    @TempDir
    Path dir;
    HostTree tree;
    PrometheusRegistry registry;

    @BeforeEach
    void node() {
        tree = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("node"));
        registry = new PrometheusRegistry();
        registry.register(new RdmaPortCollector(tree.root()));
    }

    @Test
    void withoutHardwareCountersThePortsKeepTheirCountersAndLoseOnlyTheDrivers() {
        String all = scrape();
        PrometheusRegistry lean = new PrometheusRegistry();
        lean.register(new RdmaPortCollector(tree.root(), false));
        String without = scrape(lean);

        assertThat(all).contains("railyard_rdma_np_ecn_marked_roce_packets_received_total{");
        assertThat(without).doesNotContain("railyard_rdma_np_ecn_marked_roce_packets_received_total", "railyard_rdma_hw_events_total",
                "railyard_rdma_req_transport_retries_exceeded_total")
                .contains("railyard_rdma_port_data_transmitted_bytes_total{", "railyard_rdma_state_id{", "railyard_rdma_port_info{");
        assertThat(series(without)).as("a RoCE port's 15 driver counters, 8 ports").isLessThanOrEqualTo(series(all) - 8 * 15);
    }

    private static long series(String exposition) {
        return exposition.lines().filter(line -> !line.startsWith("#") && !line.isBlank()).count();
    }

    @Test
    void everyScrapeShowsTheCountersAsTheyAreNow() {
        assertThat(transmittedAfterWriting(100)).isEqualTo(400.0);

        assertThat(transmittedAfterWriting(250)).isEqualTo(1000.0);
    }

    @Test
    void aVanishedDeviceDropsItsSeriesAndOneAddedAgainShowsItsOwnFiles() throws IOException {
        Path device = scrapedDevice();
        Path saved = saved(device);

        tree.remove("sys/class/infiniband/mlx5_1").remove(tree.root().relativize(device).toString()); // as the kernel does
        assertThat(scrape()).doesNotContain("device=\"mlx5_1\"").contains("device=\"mlx5_2\"");

        copy(saved, device);
        tree.link("sys/class/infiniband/mlx5_1", tree.root().relativize(device).toString());
        assertThat(transmittedAfterWriting(7)).isEqualTo(28.0);
    }

    @Test
    void aDeviceReplacedBetweenScrapesIsReadFromItsNewFiles() throws IOException {
        Path device = scrapedDevice();
        Path saved = saved(device);

        // removed and added again under the same name (a driver reload) with no scrape between
        tree.remove(tree.root().relativize(device).toString());
        copy(saved, device);

        assertThat(transmittedAfterWriting(9)).isEqualTo(36.0);
    }

    @Test
    void aMalformedFileIsSkippedAndCounted() {
        tree.rawFile(tree.portDir("mlx5_1", 1) + "/counters/port_xmit_data", "garbage\n");

        String exposition = scrape();

        Map<String, Double> samples = Exposition.parse(exposition);
        assertThat(samples).doesNotContainKey(TRANSMITTED).containsKey(TRANSMITTED.replace("mlx5_1", "mlx5_2"));
        assertThat(samples.get("railyard_scrape_malformed_files_total[]")).isPositive();
    }

    /** Writes mlx5_1 port 1's transmitted-data counter (in 4-byte words) and scrapes: the bytes exported. */
    private Double transmittedAfterWriting(long words) {
        tree.counters("mlx5_1", 1, "counters", Map.of("port_xmit_data", words));
        return Exposition.parse(scrape()).get(TRANSMITTED);
    }

    /** The directory of mlx5_1, once a scrape has read it (and so holds its files open). */
    private Path scrapedDevice() {
        assertThat(transmittedAfterWriting(100)).isEqualTo(400.0);
        return tree.root().resolve(tree.portDir("mlx5_1", 1)).getParent().getParent();
    }

    private Path saved(Path device) throws IOException {
        Path saved = dir.resolve("saved");
        copy(device, saved);
        return saved;
    }

    private String scrape() {
        return scrape(registry);
    }

    private static String scrape(PrometheusRegistry registry) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            PrometheusTextFormatWriter.create().write(out, registry.scrape());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Copies a directory tree, symlinks as symlinks: the copy is a new directory with new files, as after a reload. */
    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path source : walk.toList()) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isSymbolicLink(source)) {
                    Files.createSymbolicLink(target, Files.readSymbolicLink(source));
                } else if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(source, target);
                }
            }
        }
    }
}
