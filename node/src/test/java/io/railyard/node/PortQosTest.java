package io.railyard.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A port's traffic class and P_Key table, read from the files the kernel and MLNX_OFED's driver write. */
class PortQosTest {
    @TempDir
    Path dir;

    private static Port port(HostTree tree, String id) {
        return NodeDiscovery.discover(tree.root()).ports().stream().filter(p -> p.id().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void trafficClassAsTheDriverPrintsItAndWhenItIsNotSet() {
        assertThat(Port.parseTrafficClass("Global tclass=106\n")).isEqualTo(106);
        assertThat(Port.parseTrafficClass("162")).isEqualTo(162);
        assertThatThrownBy(() -> Port.parseTrafficClass("Global tclass=-1")).hasMessage("no traffic class set");
        assertThatThrownBy(() -> Port.parseTrafficClass("")).hasMessage("no traffic class set");

        HostTree tree = ExampleNodes.write(ExampleNodes.ROCE, dir).trafficClass("mlx5_2", 1, "Global tclass=106");

        assertThat(port(tree, "mlx5_2:1").trafficClass().orElseThrow()).isEqualTo(106);
        assertThat(port(tree, "mlx5_1:1").trafficClass().text()).startsWith("unknown (").contains("tc/1/traffic_class");
    }

    @Test
    void thePkeyTableKeepsTheEntriesInUseWithTheirIndex() {
        HostTree tree = ExampleNodes.write(ExampleNodes.INFINIBAND, dir).pkeys("mlx5_0", 1, 0xffff, 0x0000, 0x8001, 0x0002);

        assertThat(port(tree, "mlx5_0:1").pkeys()).containsExactly(new PKey(0, 0xffff), new PKey(2, 0x8001), new PKey(3, 0x0002));
        assertThat(PKey.find(port(tree, "mlx5_0:1").pkeys(), 0x0001)).contains(new PKey(2, 0x8001));
        assertThat(new PKey(3, 0x0002).fullMember()).isFalse();
        assertThat(port(tree, "mlx5_1:1").pkeys()).isEmpty();
    }

    @Test
    void aPkeyIsHexadecimalWithAPartition() {
        assertThat(PKey.parse("0x8001")).isEqualTo(0x8001);
        assertThat(PKey.parse("7fff")).isEqualTo(0x7fff);
        assertThatThrownBy(() -> PKey.parse("0x8000")).hasMessageStartingWith("P_Key 0x8000 is not a partition key");
        assertThatThrownBy(() -> PKey.parse("partition-1")).hasMessageStartingWith("P_Key 'partition-1' is not hexadecimal");
    }
}
