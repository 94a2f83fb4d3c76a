package io.railyard.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TopologyTest {
    @Test
    void railOptimizedFatTreeHasTwoPodsOfTwoRailLeavesUnderOneSpineGroup() {
        Topology topology = Fixtures.topology("fattree");

        assertThat(topology.switches()).extracting(Topology.Switch::name, Topology.Switch::tier, Topology.Switch::role).containsExactly(
                tuple("leaf-01", 1, Topology.Role.leaf), tuple("leaf-02", 1, Topology.Role.leaf),
                tuple("leaf-03", 1, Topology.Role.leaf), tuple("leaf-04", 1, Topology.Role.leaf),
                tuple("spine-01", 2, Topology.Role.spine), tuple("spine-02", 2, Topology.Role.spine));
        assertThat(topology.switchNamed("leaf-01").guid()).isEqualTo(Guid.parse("0xb8cef60300a1b202"));
        assertThat(topology.switchNamed("leaf-01").ports()).isEqualTo(40);
        assertThat(topology.groups()).extracting(Topology.Group::name, Topology.Group::leaves, Topology.Group::hosts, Topology.Group::spineGroup)
                .containsExactly(
                        tuple("rails-leaf-01", List.of("leaf-01", "leaf-02"),
                                List.of("gpu-node-01", "gpu-node-02", "gpu-node-03", "gpu-node-04"), "spines-spine-01"),
                        tuple("rails-leaf-03", List.of("leaf-03", "leaf-04"),
                                List.of("gpu-node-05", "gpu-node-06", "gpu-node-07", "gpu-node-08"), "spines-spine-01"));
        assertThat(topology.spineGroups()).containsExactly(new Topology.SpineGroup("spines-spine-01", List.of("spine-01", "spine-02")));
        Topology.Host host = topology.hosts().get(5);
        assertThat(host.host()).isEqualTo("gpu-node-06");
        assertThat(host.hcas()).containsExactly(
                new Topology.Hca("mlx5_0", Guid.parse("0x043f720300e1a014"), 17, "leaf-03"),
                new Topology.Hca("mlx5_1", Guid.parse("0x043f720300e1a016"), 18, "leaf-04"));
        assertThat(host.leaves()).containsExactly("leaf-03", "leaf-04");
        assertThat(host.group()).isEqualTo("rails-leaf-03");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ibnetdiscover-g.txt", "ibnetdiscover-p.txt"})
    void groupedAndPortFormsGiveTheSameTiersAndGroups(String file) {
        Topology plain = Fixtures.topology("fattree");
        Topology other = Topology.of(Fixtures.fabric("fattree", file), Map.of());

        assertThat(other.switches()).extracting(Topology.Switch::name, Topology.Switch::tier)
                .isEqualTo(plain.switches().stream().map(s -> tuple(s.name(), s.tier())).toList());
        assertThat(other.groups()).isEqualTo(plain.groups());
        assertThat(other.hosts()).extracting(Topology.Host::host, Topology.Host::group)
                .isEqualTo(plain.hosts().stream().map(h -> tuple(h.host(), h.group())).toList());
    }

    @Test
    void singleSwitchIsOneLeafWithoutSpinesAndATwoPortHcaIsOneHca() {
        Fabric fabric = Fixtures.fabric("single-switch", "ibnetdiscover.txt");
        Topology topology = Topology.of(fabric, Map.of("gpu-node-04", "node-4.cluster.local"));

        assertThat(topology.switches()).singleElement().satisfies(sw -> {
            assertThat(sw.name()).isEqualTo("sw-98039b0300f0a000");   // "SwitchIB Mellanox Technologies" names a model
            assertThat(sw.role()).isEqualTo(Topology.Role.leaf);
        });
        assertThat(topology.spineGroups()).isEmpty();
        assertThat(topology.groups()).singleElement().satisfies(g -> assertThat(g.spineGroup()).isNull());
        assertThat(topology.hosts()).hasSize(4);
        Topology.Host four = topology.hosts().get(3);
        assertThat(four.node()).isEqualTo("node-4.cluster.local");
        assertThat(four.hcas()).singleElement().satisfies(hca -> assertThat(hca.guid()).isEqualTo(Guid.parse("0x98039b0300c4e106")));
        assertThat(fabric.cables()).filteredOn(c -> c.touches(Guid.parse("98039b0300c4e106"))).hasSize(2);
        assertThat(fabric.nodeOrPort(Guid.parse("0x98039b0300c4e108")).description()).isEqualTo("gpu-node-04 mlx5_0");
    }

    @Test
    void eachCableIsCountedOnceThoughBothEndsPrintIt() {
        Fabric fabric = Fixtures.fabric("fattree", "ibnetdiscover.txt");

        // 16 host links and 4 leaves x 4 uplinks
        assertThat(fabric.cables()).hasSize(32);
        assertThat(fabric.cables()).allSatisfy(c -> assertThat(c.rate()).isEqualTo("4xHDR"));
    }

    @Test
    void aSpeedInSmallLettersIsTheSpeedAndItsCableStillCountsOnce() {
        List<String> lines = Fixtures.lines("fattree", "ibnetdiscover.txt").stream()
                .map(line -> line.startsWith("[2]\t\"H-043f720300e1a016\"") ? line.replace("4xHDR", "4xhdr") : line).toList();

        Fabric fabric = IbNetDiscover.parse(lines);

        assertThat(fabric.cables()).hasSize(32);
        Guid leaf = Guid.parse("b8cef60300a1b205");
        assertThat(fabric.cablesOf(leaf)).filteredOn(c -> c.endOf(leaf).port() == 2).singleElement()
                .satisfies(c -> assertThat(c.rate()).isEqualTo("4xHDR"));
    }

    @Test
    void aGuidLineCutShortDeclaresNothing() {
        List<String> lines = Fixtures.lines("fattree", "ibnetdiscover.txt").stream()
                .map(line -> line.equals("switchguid=0xb8cef60300a1b205(b8cef60300a1b205)") ? "switchguid=0x" : line).toList();

        Fabric fabric = IbNetDiscover.parse(lines);

        assertThat(fabric.cables()).hasSize(32);
        assertThat(fabric.node(Guid.parse("b8cef60300a1b205")).description()).isEqualTo("MF0;leaf-04:MQM8700/U1");
    }

    @Test
    void hcasWithTheFactoryDescriptionAreNotOneHost() {
        Fabric fabric = IbNetDiscover.parse(Fixtures.lines("single-switch", "ibnetdiscover.txt").stream()
                .map(line -> line.replaceAll("\"gpu-node-0[12] mlx5_0\"", "\"MT4123 ConnectX6   Mellanox Technologies\"")).toList());

        Topology topology = Topology.of(fabric, Map.of());

        assertThat(topology.hosts()).extracting(Topology.Host::host)
                .containsExactlyInAnyOrder("gpu-node-03", "gpu-node-04", "hca-98039b0300c4e100", "hca-98039b0300c4e102");
        assertThat(FabricHealth.check(fabric, topology, List.of(), List.of(), null)).isEmpty();
    }

    @Test
    void guidsCompareAsNumbersWhateverTheLeadingZeros() {
        assertThat(Guid.parse("43f720300e1a001")).isEqualTo(Guid.parse("0x043f720300e1a001"));
        assertThat(Guid.parse("0x043f720300e1a001").toString()).isEqualTo("0x043f720300e1a001");
        assertThat(Guid.parse("0X043F720300E1A001")).isEqualTo(Guid.parse("43f720300e1a001"));
        assertThat(Guid.parse("ffffffffffffffff").toString()).isEqualTo("0xffffffffffffffff");
        for (String notOne : List.of("", "0x", "xyz", "43f72g", "0x10000000000000000", "-1")) {
            assertThatThrownBy(() -> Guid.parse(notOne)).as(notOne).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
