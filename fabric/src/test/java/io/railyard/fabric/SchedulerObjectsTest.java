package io.railyard.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchedulerObjectsTest {
    @Test
    void railOptimizedHostsAreLabelledWithTheirRailGroupAndSpineGroup() {
        Map<String, Map<String, String>> labels = SchedulerObjects.labels(Fixtures.topology("fattree"));

        assertThat(labels).hasSize(8);
        assertThat(labels.get("gpu-node-02")).containsExactly(Map.entry("railyard.io/ib-leaf", "rails-leaf-01"),
                Map.entry("railyard.io/ib-spine-group", "spines-spine-01"), Map.entry("railyard.io/fabric.shape", "rail-optimized"),
                Map.entry("railyard.io/fabric.tiers", "2"));
        assertThat(labels.get("gpu-node-07")).containsEntry("railyard.io/ib-leaf", "rails-leaf-03");
    }

    @Test
    void theShapeOfEachFixtureAndItsLabelsOnEveryHost() {
        Topology single = Fixtures.topology("single-switch");

        assertThat(FabricShape.of(Fixtures.topology("fattree"))).isEqualTo(new FabricShape(FabricShape.Kind.RAIL_OPTIMIZED, 2,
                "all 8 hosts with several HCAs have each HCA on a leaf of its own"));
        assertThat(FabricShape.of(single).kind()).isEqualTo(FabricShape.Kind.SINGLE_SWITCH);
        assertThat(FabricShape.of(single).tiers()).isEqualTo(1);
        assertThat(SchedulerObjects.labels(single)).hasSize(4).allSatisfy((node, labels) -> assertThat(labels)
                .containsEntry("railyard.io/fabric.shape", "single-switch").containsEntry("railyard.io/fabric.tiers", "1"));
        // gpu-node-07 lost its mlx5_1: one HCA left, nothing to tell it by; the others keep the fabric rail-optimized
        assertThat(FabricShape.of(Fixtures.topology("fattree-faults")).kind()).isEqualTo(FabricShape.Kind.RAIL_OPTIMIZED);
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> FabricShape.Kind.of("torus")))
                .hasMessage("'torus' is not a fabric shape: use rail-optimized, fat-tree, single-switch or mixed");
    }

    @Test
    void labelsAreStableWhateverOrderTheToolPrintedTheFabricIn() {
        List<String> records = List.of(String.join("\n", Fixtures.lines("fattree", "ibnetdiscover.txt")).split("\n\n"));
        List<String> reversedRecords = String.join("\n\n", records.reversed()).lines().toList();

        assertThat(SchedulerObjects.labels(Topology.of(IbNetDiscover.parse(reversedRecords), Map.of())))
                .isEqualTo(SchedulerObjects.labels(Fixtures.topology("fattree")));
    }

    @Test
    void hyperNodesAreLeafGroupsOfNodesUnderSpineGroupsOfHyperNodes() {
        List<Map<String, Object>> hyperNodes = SchedulerObjects.hyperNodes(Fixtures.topology("fattree"));

        assertThat(hyperNodes).extracting(h -> (Object) ((Map<?, ?>) h.get("metadata")).get("name"))
                .containsExactly("rails-leaf-01", "rails-leaf-03", "spines-spine-01");
        Map<?, ?> tier1 = (Map<?, ?>) hyperNodes.getFirst().get("spec");
        assertThat(tier1.get("tier")).isEqualTo(1);
        assertThat((List<?>) tier1.get("members")).hasSize(4).first()
                .isEqualTo(Map.of("type", "Node", "selector", Map.of("exactMatch", Map.of("name", "gpu-node-01"))));
        Map<?, ?> tier2 = (Map<?, ?>) hyperNodes.get(2).get("spec");
        assertThat(tier2.get("tier")).isEqualTo(2);
        assertThat(tier2.get("members")).isEqualTo(List.of(
                Map.of("type", "HyperNode", "selector", Map.of("exactMatch", Map.of("name", "rails-leaf-01"))),
                Map.of("type", "HyperNode", "selector", Map.of("exactMatch", Map.of("name", "rails-leaf-03")))));
    }

    @Test
    void kueueTopologyLevelsGoFromSpineGroupToHostAndSkipSpinesWhenThereAreNone() {
        assertThat(((Map<?, ?>) SchedulerObjects.kueueTopology(Fixtures.topology("fattree")).get("spec")).get("levels")).isEqualTo(List.of(
                Map.of("nodeLabel", "railyard.io/ib-spine-group"), Map.of("nodeLabel", "railyard.io/ib-leaf"),
                Map.of("nodeLabel", "kubernetes.io/hostname")));
        assertThat(((Map<?, ?>) SchedulerObjects.kueueTopology(Fixtures.topology("single-switch")).get("spec")).get("levels")).isEqualTo(List.of(
                Map.of("nodeLabel", "railyard.io/ib-leaf"), Map.of("nodeLabel", "kubernetes.io/hostname")));
    }

    @Test
    void labelValuesAreValidWhateverTheSwitchIsCalled() {
        assertThat(LabelValue.of("Leaf 01 (Row B)")).isEqualTo("leaf-01-row-b");
        assertThat(LabelValue.of("-x".repeat(40))).hasSizeLessThanOrEqualTo(63).matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");
    }
}
