package io.railyard.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Railyard's model of fabrics this test writes, read through the real infiniband-diags from ibsim with OpenSM. */
class LiveFabricIT {
    @TempDir
    Path dir;

    /** Two pods of two rail leaves under their own two spines, the spines under two cores; two hosts per pod, two HCAs each. */
    private static NetFile threeTier() {
        NetFile net = new NetFile().switchNamed("core-01").switchNamed("core-02");
        for (String pod : List.of("a", "b")) {
            for (int i = 1; i <= 2; i++) {
                net.switchNamed("spine-" + pod + i).switchNamed("leaf-" + pod + i);
            }
            for (int i = 1; i <= 2; i++) {
                for (int s = 1; s <= 2; s++) {
                    net.cable("leaf-" + pod + i, 10 + s, "spine-" + pod + s, i);
                }
                for (int c = 1; c <= 2; c++) {
                    net.cable("spine-" + pod + i, 10 + c, "core-0" + c, (pod.equals("a") ? 0 : 2) + i);
                }
                String host = "node-" + pod + i;
                net.hca(host, "mlx5_0").hca(host, "mlx5_1");
                net.cable(host + "-mlx5_0", 1, "leaf-" + pod + "1", i).cable(host + "-mlx5_1", 1, "leaf-" + pod + "2", i);
            }
        }
        return net;
    }

    @Test
    void threeTierTreeHasLeavesSpinesAndCoresAndOneSpineGroupPerPod() throws Exception {
        try (LiveFabric fabric = LiveFabric.start(dir, threeTier(), List.of())) {
            Fabric discovered = IbNetDiscover.parse(fabric.run("node-a1 mlx5_0", "ibnetdiscover"));
            Topology topology = Topology.of(discovered, Map.of());

            assertThat(topology.switches()).extracting(Topology.Switch::name, Topology.Switch::role).containsExactly(
                    tuple("leaf-a1", Topology.Role.leaf), tuple("leaf-a2", Topology.Role.leaf), tuple("leaf-b1", Topology.Role.leaf),
                    tuple("leaf-b2", Topology.Role.leaf), tuple("spine-a1", Topology.Role.spine), tuple("spine-a2", Topology.Role.spine),
                    tuple("spine-b1", Topology.Role.spine), tuple("spine-b2", Topology.Role.spine), tuple("core-01", Topology.Role.core),
                    tuple("core-02", Topology.Role.core));
            assertThat(topology.groups()).extracting(Topology.Group::name, Topology.Group::leaves, Topology.Group::hosts, Topology.Group::spineGroup)
                    .containsExactly(
                            tuple("rails-leaf-a1", List.of("leaf-a1", "leaf-a2"), List.of("node-a1", "node-a2"), "spines-spine-a1"),
                            tuple("rails-leaf-b1", List.of("leaf-b1", "leaf-b2"), List.of("node-b1", "node-b2"), "spines-spine-b1"));
            assertThat(SchedulerObjects.labels(topology).get("node-b2")).containsExactly(Map.entry(SchedulerObjects.LEAF_LABEL, "rails-leaf-b1"),
                    Map.entry(SchedulerObjects.SPINE_GROUP_LABEL, "spines-spine-b1"), Map.entry(FabricShape.SHAPE_LABEL, "rail-optimized"),
                    Map.entry(FabricShape.TIERS_LABEL, "3"));
            assertThat(SchedulerObjects.hyperNodes(topology)).extracting(h -> (Object) ((Map<?, ?>) h.get("spec")).get("tier")).containsExactly(1, 1, 2, 2);
            assertThat(FabricHealth.check(discovered, topology, IbLinkInfo.parse(fabric.run("node-a1 mlx5_0", "iblinkinfo")),
                    IbQueryErrors.parse(fabric.run("node-a1 mlx5_0", "ibqueryerrors")), null)).isEmpty();
            // The one-line-per-port form gives the same tiers and groups.
            Topology fromPorts = Topology.of(IbNetDiscover.parse(fabric.run("node-a1 mlx5_0", "ibnetdiscover", "-p")), Map.of());
            assertThat(fromPorts.groups()).isEqualTo(topology.groups());
        }
    }

    @Test
    void anEightRailFabricIsRailOptimizedAndATreeWhoseHostsShareALeafIsAFatTree() throws Exception {
        NetFile rails = new NetFile().switchNamed("spine-1").switchNamed("spine-2");
        for (int rail = 0; rail < 8; rail++) {
            rails.switchNamed("leaf-r" + rail).cable("leaf-r" + rail, 11, "spine-1", rail + 1).cable("leaf-r" + rail, 12, "spine-2", rail + 1);
        }
        for (int h = 1; h <= 3; h++) {
            for (int rail = 0; rail < 8; rail++) {
                rails.hca("node-" + h, "mlx5_" + rail).cable("node-" + h + "-mlx5_" + rail, 1, "leaf-r" + rail, h);
            }
        }
        NetFile tree = new NetFile().switchNamed("spine-1").switchNamed("spine-2").switchNamed("leaf-1").switchNamed("leaf-2");
        for (int l = 1; l <= 2; l++) {
            tree.cable("leaf-" + l, 11, "spine-1", l).cable("leaf-" + l, 12, "spine-2", l);
        }
        for (int h = 1; h <= 4; h++) { // both HCAs of a host on its leaf
            int leaf = h <= 2 ? 1 : 2;
            tree.hca("node-" + h, "mlx5_0").hca("node-" + h, "mlx5_1")
                    .cable("node-" + h + "-mlx5_0", 1, "leaf-" + leaf, 2 * h - 1).cable("node-" + h + "-mlx5_1", 1, "leaf-" + leaf, 2 * h);
        }

        NetFile mixed = new NetFile().switchNamed("spine-1").switchNamed("leaf-1").switchNamed("leaf-2");
        mixed.cable("leaf-1", 11, "spine-1", 1).cable("leaf-2", 11, "spine-1", 2);
        for (int h = 1; h <= 3; h++) { // hosts 1 and 2 on one leaf, host 3 across both
            mixed.hca("node-" + h, "mlx5_0").hca("node-" + h, "mlx5_1").cable("node-" + h + "-mlx5_0", 1, "leaf-1", 2 * h - 1)
                    .cable("node-" + h + "-mlx5_1", 1, h == 3 ? "leaf-2" : "leaf-1", 2 * h);
        }

        FabricShape mixedShape;
        try (LiveFabric fabric = LiveFabric.start(java.nio.file.Files.createDirectories(dir.resolve("mixed")), mixed, List.of())) {
            mixedShape = FabricShape.of(Topology.of(IbNetDiscover.parse(fabric.run("node-1 mlx5_0", "ibnetdiscover")), Map.of()));
        }
        assertThat(mixedShape).isEqualTo(new FabricShape(FabricShape.Kind.MIXED, 2,
                "of 3 hosts with several HCAs: 1 with each HCA on a leaf of its own, 2 with all on one leaf, 0 between"));
        FabricShape railShape;
        try (LiveFabric fabric = LiveFabric.start(java.nio.file.Files.createDirectories(dir.resolve("rails")), rails, List.of())) {
            railShape = FabricShape.of(Topology.of(IbNetDiscover.parse(fabric.run("node-1 mlx5_0", "ibnetdiscover")), Map.of()));
        }
        FabricShape treeShape;
        try (LiveFabric fabric = LiveFabric.start(java.nio.file.Files.createDirectories(dir.resolve("tree")), tree, List.of())) {
            treeShape = FabricShape.of(Topology.of(IbNetDiscover.parse(fabric.run("node-1 mlx5_0", "ibnetdiscover")), Map.of()));
        }

        assertThat(railShape).isEqualTo(new FabricShape(FabricShape.Kind.RAIL_OPTIMIZED, 2, "all 3 hosts with several HCAs have each HCA on a leaf of its own"));
        assertThat(treeShape).isEqualTo(new FabricShape(FabricShape.Kind.FAT_TREE, 2, "all 4 hosts with several HCAs have their HCAs on one leaf"));
    }

    @Test
    void faultsWrittenIntoTheFabricAreFoundWhereTheyWerePlanted() throws Exception {
        NetFile net = new NetFile().switchNamed("spine-1").switchNamed("spine-2").switchNamed("leaf-1").switchNamed("leaf-2");
        for (int l = 1; l <= 2; l++) {
            net.cable("leaf-" + l, 11, "spine-1", l).cable("leaf-" + l, 12, "spine-2", l, l == 2 ? "e=3" : "");
        }
        for (int h = 1; h <= 3; h++) {
            net.hca("node-" + h, "mlx5_0").hca("node-" + h, "mlx5_1");
            net.cable("node-" + h + "-mlx5_0", 1, "leaf-1", h, h == 2 ? "w=1" : "").cable("node-" + h + "-mlx5_1", 1, "leaf-2", h);
        }
        net.counter("leaf-1", 11, "SymbolErrorCounter", 500);

        try (LiveFabric fabric = LiveFabric.start(dir, net, List.of("Unlink \"node-3-mlx5_1\"[1]", "Unlink \"leaf-1\"[12]"))) {
            Fabric discovered = IbNetDiscover.parse(fabric.run("node-1 mlx5_0", "ibnetdiscover"));
            Topology topology = Topology.of(discovered, Map.of());
            List<FabricFinding> findings = FabricHealth.check(discovered, topology, IbLinkInfo.parse(fabric.run("node-1 mlx5_0", "iblinkinfo")),
                    IbQueryErrors.parse(fabric.run("node-1 mlx5_0", "ibqueryerrors")), null);

            assertThat(findings).extracting(FabricFinding::id, FabricFinding::summary).containsExactly(
                    tuple("degraded-link", "link leaf-2 port 12 <-> spine-2 port 2 runs at 4xEDR where the fabric's links run at 4xHDR"),
                    tuple("degraded-link", "link node-2 mlx5_0 port 1 <-> leaf-1 port 2 runs at 1xHDR where the fabric's links run at 4xHDR"),
                    tuple("missing-hca", "node-3 has 1 HCA on the fabric (mlx5_0) where its peers have 2: missing mlx5_1 (its peers' mlx5_1 are on leaf-2)"),
                    tuple("port-down", "leaf-1 port 12 is Down/Polling; port 12 is cabled on 1 of the other 1 leaf switches"),
                    tuple("port-down", "leaf-2 port 3 is Down/Polling; port 3 is cabled on 1 of the other 1 leaf switches"),
                    tuple("port-down", "spine-2 port 1 is Down/Polling; port 1 is cabled on 1 of the other 1 spine switches"),
                    tuple("port-errors", "leaf-1 port 11 (to spine-1 port 1): SymbolErrorCounter=500"),
                    tuple("uplink-asymmetry", "leaf-1 has 1 uplinks where the other leaf switches have 2"));
        }
    }
}
