package io.railyard.agent.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.agent.PortHealth;
import io.railyard.node.NodeDiscovery;
import io.railyard.node.Sysfs;
import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sampler on a real-layout InfiniBand tree, with and without the device plugin's readings. */
class PortSamplerTest {
    @TempDir
    Path dir;

    @Test
    void theDevicePluginsReadingIsUsedAndAPortsOwnFilesReadOnlyWithoutOne() {
        HostTree tree = ExampleNodes.write(ExampleNodes.INFINIBAND, dir);
        PortSampler sampler = new PortSampler(Sysfs.keepingFilesOpen(tree.root()), NodeDiscovery.discover(tree.root()).ports());
        tree.file(tree.portDir("mlx5_2", 1) + "/state", "1: DOWN");
        tree.file(tree.portDir("mlx5_2", 1) + "/phys_state", "2: Polling");

        List<PortSample> own = sampler.sample(Map.of(), true, true);
        List<PortSample> fromPlugin = sampler.sample(Map.of("mlx5_2:1", new PortHealth(true, "", PortHealth.LINK_UP),
                "mlx5_5:1", new PortHealth(false, "port mlx5_5:1 is DOWN/Disabled", "DOWN/Disabled")), false, false);

        assertThat(own).filteredOn(s -> !s.up()).extracting(PortSample::port, PortSample::state)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("mlx5_2:1", "DOWN/Polling"));
        assertThat(own.getFirst().errors()).containsKeys("symbol_error", "port_rcv_errors");
        assertThat(own.getFirst().linkDowned()).isNotNull();
        assertThat(fromPlugin).filteredOn(s -> !s.up()).extracting(PortSample::port).containsExactly("mlx5_5:1");
        assertThat(fromPlugin.getFirst().errors()).as("counters only on full rounds").isEmpty();
    }

    @Test
    void aGonePortIsLeftOutFromTheNextFullRound() {
        HostTree tree = ExampleNodes.write(ExampleNodes.INFINIBAND, dir);
        PortSampler sampler = new PortSampler(Sysfs.keepingFilesOpen(tree.root()), NodeDiscovery.discover(tree.root()).ports());
        assertThat(sampler.sample(Map.of(), true, true)).hasSize(8);

        tree.remove("sys/class/infiniband/mlx5_6");

        assertThat(sampler.sample(Map.of(), true, false)).as("gone is noticed without reading counters").hasSize(7)
                .extracting(PortSample::port).doesNotContain("mlx5_6:1");
    }
}
