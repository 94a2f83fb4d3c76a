package io.railyard.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.agent.health.NodeHealthConfig;
import io.railyard.node.NodeDiscovery;
import io.railyard.node.NodeInventory;
import io.railyard.testkit.ExampleNodes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentConfigTest {
    @TempDir
    Path dir;

    private Path write(String yaml) throws Exception {
        return Files.writeString(dir.resolve("agent.yaml"), yaml);
    }

    @Test
    void defaultsToOneExclusiveResourceForEveryPort() {
        ResourceConfig resource = AgentConfig.defaults().resources().getFirst();

        assertThat(resource.name()).isEqualTo("rdma/rdma");
        assertThat(resource.mode()).isEqualTo(ResourceConfig.Mode.EXCLUSIVE);
        assertThat(resource.socketName()).isEqualTo("railyard-rdma-rdma.sock");
    }

    @Test
    void readsResourcesAndSelectors() throws Exception {
        AgentConfig config = AgentConfig.load(write("""
                resources:
                  - name: rdma/roce
                    selector:
                      linkLayers: [Ethernet]
                      netdevs: ["eth[12]"]
                      vendors: ["15b3"]
                  - name: rdma/shared
                    mode: shared
                    slotsPerPort: 8
                """));
        NodeInventory node = NodeDiscovery.discover(ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("node")).root());
        Set<String> taken = new HashSet<>();

        List<PluginDevice> roce = PluginDevice.forResource(node, config.resources().get(0), taken);
        List<PluginDevice> shared = PluginDevice.forResource(node, config.resources().get(1), taken);

        assertThat(roce).extracting(PluginDevice::id).containsExactly("mlx5_1:1", "mlx5_2:1");
        assertThat(shared).extracting(PluginDevice::id).hasSize(16).startsWith("mlx5_3:1#0").doesNotContain("mlx5_1:1#0");
    }

    @Test
    void hardwareCountersAreOnUnlessTheMetricsSectionTurnsThemOff() throws Exception {
        assertThat(AgentConfig.defaults().metrics().hardwareCounters()).isTrue();
        assertThat(AgentConfig.load(write("metrics: {}\n")).metrics().hardwareCounters()).isTrue();
        assertThat(AgentConfig.load(write("metrics:\n  hardwareCounters: false\n")).metrics().hardwareCounters()).isFalse();
        assertThatThrownBy(() -> AgentConfig.load(write("metrics:\n  hardwareCounters: maybe\n")))
                .hasMessageEndingWith("metrics.hardwareCounters is 'maybe': use true or false");
    }

    @Test
    void unknownKeyNamesTheFileAndTheKey() throws Exception {
        Path file = write("""
                resources:
                  - name: rdma/rdma
                    selector:
                      linkLayer: [Ethernet]
                """);

        assertThatThrownBy(() -> AgentConfig.load(file))
                .hasMessageStartingWith(file + ": unknown key 'linkLayer' at resources[0].selector")
                .hasMessageContaining("linkLayers");
    }

    @Test
    void badValuesSayWhatIsWrong() throws Exception {
        assertThatThrownBy(() -> AgentConfig.load(write("resources:\n  - name: rdma\n")))
                .hasMessageContaining("resource name 'rdma' is not <domain>/<name>");
        assertThatThrownBy(() -> AgentConfig.load(write("resources:\n  - selector:\n      linkLayers: [Omnipath]\n")))
                .hasMessageContaining("expected InfiniBand or Ethernet");
        assertThatThrownBy(() -> AgentConfig.load(write("resources:\n  - mode: sometimes\n")))
                .hasMessageContaining("sometimes").hasMessageContaining("resources[0].mode");
        assertThatThrownBy(() -> AgentConfig.load(write("resources: [\n")))
                .hasMessageStartingWith(dir.resolve("agent.yaml") + ": ");
        assertThatThrownBy(() -> AgentConfig.load(dir.resolve("missing.yaml")))
                .hasMessage(dir.resolve("missing.yaml") + ": no such file");
    }

    @Test
    void nodeHealthHasDefaultsAndItsMistakesNameTheKey() throws Exception {
        assertThat(AgentConfig.defaults().nodeHealth()).satisfies(h -> {
            assertThat(h.enabled()).isTrue();
            assertThat(h.stickySeconds()).isEqualTo(600);
            assertThat(h.flapping()).isEqualTo(new NodeHealthConfig.Flapping(3, 600));
            assertThat(h.errors().perHour()).containsEntry("symbol_error", 10L).containsEntry("port_rcv_errors", 10L).hasSize(5);
            assertThat(h.taint().enabled()).isFalse();
            assertThat(h.taint().effect()).isEqualTo("NoSchedule");
        });
        AgentConfig set = AgentConfig.load(write("nodeHealth: {stickySeconds: 30, errors: {perHour: {symbol_error: 100}}, "
                + "taint: {enabled: true, effect: NoExecute}}\n"));
        assertThat(set.nodeHealth().errors().perHour()).containsEntry("symbol_error", 100L).containsEntry("link_error_recovery", 10L);
        assertThat(set.nodeHealth().taint().effect()).isEqualTo("NoExecute");
        assertThat(set.resources()).extracting(ResourceConfig::name).containsExactly("rdma/rdma");

        assertThatThrownBy(() -> AgentConfig.load(write("nodeHealth: {stickyseconds: 30}\n")))
                .hasMessageStartingWith(dir.resolve("agent.yaml") + ": unknown key 'stickyseconds' at nodeHealth");
        assertThatThrownBy(() -> AgentConfig.load(write("nodeHealth: {taint: {effect: Evict}}\n")))
                .hasMessageContaining("nodeHealth.taint.effect is 'Evict': use NoSchedule or NoExecute");
        assertThatThrownBy(() -> AgentConfig.load(write("nodeHealth: {errors: {perHour: {symbol_errors: 5}}}\n")))
                .hasMessageContaining("unknown counter 'symbol_errors'");
        assertThatThrownBy(() -> AgentConfig.load(write("nodeHealth: {flapping: {transitions: 0}}\n")))
                .hasMessageContaining("nodeHealth.flapping.transitions must be at least 1");
        assertThatThrownBy(() -> AgentConfig.load(write("nodeHealth: {stickySeconds: soon}\n")))
                .hasMessageContaining("nodeHealth.stickySeconds").hasMessageContaining("a whole number");
    }

    @Test
    void aResourcesPartitionServiceLevelLibrariesAndTopologyFile() throws Exception {
        ResourceConfig resource = AgentConfig.load(write("""
                resources:
                  - name: rdma/ib
                    pkey: '0x8001'
                    serviceLevel: 3
                    environment: {ucx: false}
                    topology: {nodeLabel: node.kubernetes.io/instance-type, files: {Standard_ND96isr_H100_v5: /etc/railyard/topology/ndv5.xml}}
                """)).resources().getFirst();

        assertThat(resource.pkey()).isEqualTo(0x8001);
        assertThat(resource.serviceLevel()).isEqualTo(3);
        assertThat(resource.environment()).isEqualTo(new ResourceConfig.Environment(true, false, true, true, true));
        assertThat(resource.topology().fileFor(java.util.Map.of("node.kubernetes.io/instance-type", "Standard_ND96isr_H100_v5")))
                .contains("/etc/railyard/topology/ndv5.xml");
        assertThat(resource.topology().fileFor(java.util.Map.of("node.kubernetes.io/instance-type", "Standard_ND40rs_v2"))).isEmpty();

        assertThatThrownBy(() -> AgentConfig.load(write("resources: [{pkey: '0x8000'}]\n")))
                .hasMessageContaining("P_Key 0x8000 is not a partition key");
        assertThatThrownBy(() -> AgentConfig.load(write("resources: [{serviceLevel: 16}]\n")))
                .hasMessageContaining("serviceLevel is 16: an InfiniBand service level is 0-15");
        assertThatThrownBy(() -> AgentConfig.load(write("resources: [{environment: {nccl: false}}]\n")))
                .hasMessageContaining("unknown key 'nccl'");
        assertThatThrownBy(() -> AgentConfig.load(write("resources: [{topology: {file: /a.xml, nodeLabel: x}}]\n")))
                .hasMessageContaining("topology: give either file, or nodeLabel with files");
    }

    @Test
    void preferredAllocationFillsFromTheMostPopulatedNumaNode() {
        NodeInventory node = NodeDiscovery.discover(ExampleNodes.write(ExampleNodes.TWELVE_HCAS, dir.resolve("node")).root());
        java.util.Map<String, PluginDevice> byId = new java.util.LinkedHashMap<>();
        PluginDevice.forResource(node, AgentConfig.defaults().resources().getFirst(), new HashSet<>()).forEach(d -> byId.put(d.id(), d));

        List<String> chosen = PreferredAllocation.choose(byId, List.of("mlx5_0:1", "mlx5_6:1", "mlx5_7:1", "mlx5_8:1"), List.of(), 2);
        List<String> switchMates = PreferredAllocation.choose(byId, List.copyOf(byId.keySet()), List.of("mlx5_7:1"), 2);

        assertThat(chosen).containsExactly("mlx5_6:1", "mlx5_7:1");
        assertThat(switchMates).containsExactly("mlx5_7:1", "mlx5_6:1");
    }
}
