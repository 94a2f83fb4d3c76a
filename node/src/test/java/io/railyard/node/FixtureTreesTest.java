package io.railyard.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The real sysfs trees of prometheus/procfs and node_exporter: plain directories, odd files, no PCI links. */
class FixtureTreesTest {
    private static final Path TESTDATA = Path.of(System.getProperty("railyard.repo", "..")).resolve("testdata");

    @Test
    void procfsTree() {
        Path root = TESTDATA.resolve("sysfs-procfs");
        NodeInventory node = NodeDiscovery.discover(root);
        Sysfs sysfs = new Sysfs(root);

        assertThat(node.hcas()).extracting(Hca::name).containsExactly("hfi1_0", "mlx4_0", "mlx5_0");
        Hca hfi = node.hca("hfi1_0").orElseThrow();
        assertThat(hfi.hcaType().text()).contains("/sys/class/infiniband/hfi1_0/hca_type: missing");
        assertThat(hfi.firmware().orElse("")).isEqualTo("1.27.0");
        assertThat(hfi.pci().isKnown()).isFalse();
        Port hfiPort = hfi.port(1).orElseThrow();
        assertThat(hfiPort.rate().orElseThrow().bytesPerSecond()).isEqualTo(12_500_000_000L);
        assertThat(hfiPort.counters(sysfs).values()).containsEntry("port_rcv_data", 345091702026L);

        Port mlx4Port2 = node.hca("mlx4_0").orElseThrow().port(2).orElseThrow();
        assertThat(mlx4Port2.isInfiniBand()).isTrue(); // link_layer holds "InfiniBand\n\n"
        assertThat(mlx4Port2.rate().orElseThrow().bytesPerSecond()).isEqualTo(5_000_000_000L);

        Hca mlx5 = node.hca("mlx5_0").orElseThrow();
        assertThat(mlx5.nodeGuid().orElse("")).isEqualTo("0a7f:bc12:45ef:d23b");
        Port mlx5Port = mlx5.port(1).orElseThrow();
        assertThat(mlx5Port.rate().orElseThrow().bytesPerSecond()).isEqualTo(3_125_000_000L);
        assertThat(mlx5Port.isLinkUp()).isFalse(); // its phys_state is "4: ACTIVE", verbatim
        assertThat(mlx5Port.hwCounters(sysfs).values())
                .containsEntry("local_ack_timeout_err", 131L)
                .containsEntry("out_of_sequence", 1L);
    }

    @Test
    void nodeExporterTree() {
        Path root = TESTDATA.resolve("sysfs-node_exporter");
        NodeInventory node = NodeDiscovery.discover(root);
        Sysfs sysfs = new Sysfs(root);

        Port iwarp = node.hca("i40iw0").orElseThrow().port(1).orElseThrow();
        assertThat(iwarp.rate().orElseThrow().bytesPerSecond()).isEqualTo(1_250_000_000L);
        Counters counters = iwarp.counters(sysfs);
        assertThat(counters.values()).isEmpty();
        assertThat(counters.unavailable()).contains("port_rcv_data", "symbol_error");
        assertThat(counters.malformed()).isEmpty();

        Port mlx4 = node.hca("mlx4_0").orElseThrow().port(1).orElseThrow();
        assertThat(mlx4.counters(sysfs).values()).containsEntry("port_xmit_wait", 4294967295L);
    }
}
