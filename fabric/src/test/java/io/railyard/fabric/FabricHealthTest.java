package io.railyard.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.railyard.fabric.FabricFinding.Severity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The planted faults of testdata/ibsim/fattree-faults, each found once, and nothing on the healthy fabrics. */
class FabricHealthTest {
    @Test
    void healthyFabricsHaveNoFindings() {
        assertThat(Fixtures.findings("fattree")).isEmpty();
        assertThat(Fixtures.findings("single-switch")).isEmpty();
    }

    @Test
    void everyPlantedFaultIsFoundWithItsToolLine() {
        List<FabricFinding> findings = Fixtures.findings("fattree-faults");

        assertThat(findings).extracting(FabricFinding::id, FabricFinding::severity, FabricFinding::summary).containsExactly(
                tuple("degraded-link", Severity.error,
                        "link gpu-node-02 mlx5_0 port 1 <-> leaf-01 port 2 runs at 1xHDR where the fabric's links run at 4xHDR"),
                tuple("degraded-link", Severity.error, "link leaf-01 port 24 <-> spine-02 port 2 runs at 4xEDR where the fabric's links run at 4xHDR"),
                tuple("missing-hca", Severity.error,
                        "gpu-node-07 has 1 HCA on the fabric (mlx5_0) where its peers have 2: missing mlx5_1 (its peers' mlx5_1 are on leaf-04)"),
                tuple("port-down", Severity.error, "leaf-03 port 24 is Down/Polling; port 24 is cabled on 3 of the other 3 leaf switches"),
                tuple("port-down", Severity.error, "leaf-04 port 3 is Down/Polling; port 3 is cabled on 3 of the other 3 leaf switches"),
                tuple("port-down", Severity.error, "spine-02 port 6 is Down/Polling; port 6 is cabled on 1 of the other 1 spine switches"),
                tuple("port-errors", Severity.error, "leaf-02 port 21 (to spine-01 port 3): SymbolErrorCounter=1523"),
                tuple("port-errors", Severity.error, "leaf-04 port 2 (to gpu-node-06 mlx5_1 port 1): PortRcvErrors=57"),
                tuple("port-errors", Severity.warning, "spine-02 port 5 (to leaf-03 port 23): PortXmitDiscards=20931, PortXmitWait=987654"),
                tuple("uplink-asymmetry", Severity.warning, "leaf-03 has 3 uplinks where the other leaf switches have 4"));
        assertThat(findings.get(0).evidence()).isEqualTo("[2]\t\"H-043f720300e1a004\"[1](43f720300e1a005) \t\t# \"gpu-node-02 mlx5_0\" lid 8 1xHDR");
        assertThat(findings.get(4).evidence()).isEqualTo("9    3[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )");
        assertThat(findings).allSatisfy(f -> assertThat(f.remedy()).isNotBlank());
    }

    @Test
    void countersBelowTheThresholdsAndPortAllAggregatesAreNotFindings() {
        List<PortErrors> errors = IbQueryErrors.parse(Fixtures.lines("fattree-faults", "ibqueryerrors.txt"));

        assertThat(errors).extracting(PortErrors::description, PortErrors::port).containsExactly(
                tuple("gpu-node-03 mlx5_1", 1), tuple("MF0;leaf-04:MQM8700/U1", 2), tuple("MF0;leaf-03:MQM8700/U1", 24),
                tuple("MF0;leaf-02:MQM8700/U1", 21), tuple("MF0;spine-02:MQM8700/U1", 5));
        assertThat(errors.getFirst().counters()).containsExactly(Map.entry("SymbolErrorCounter", 3L), Map.entry("LinkDownedCounter", 4L));
        assertThat(Fixtures.findings("fattree-faults")).noneMatch(f -> f.summary().contains("gpu-node-03") || f.summary().contains("LinkDowned"));
    }

    @Test
    void statedHcaCountFindsHostsShortOfIt() {
        Fabric fabric = Fixtures.fabric("fattree", "ibnetdiscover.txt");

        List<FabricFinding> findings = FabricHealth.check(fabric, Topology.of(fabric, Map.of()), List.of(), List.of(), 4);

        assertThat(findings).hasSize(8).allSatisfy(f -> {
            assertThat(f.id()).isEqualTo("missing-hca");
            assertThat(f.summary()).contains("has 2 HCAs on the fabric (mlx5_0, mlx5_1) where --hcas-per-host says 4");
        });
    }

    @Test
    void downPortsListedAloneByIblinkinfoDashDAreJudgedAgainstTheCables() {
        Fabric fabric = Fixtures.fabric("fattree-faults", "ibnetdiscover.txt");
        List<LinkState> down = IbLinkInfo.parse(Fixtures.lines("fattree-faults", "iblinkinfo-d.txt"));

        List<FabricFinding> findings = FabricHealth.check(fabric, Topology.of(fabric, Map.of()), down, List.of(), null);

        assertThat(findings).filteredOn(f -> f.id().equals("port-down")).extracting(FabricFinding::summary)
                .allMatch(s -> s.startsWith("leaf-04 port 3 ") || s.startsWith("leaf-03 port 24 ") || s.startsWith("spine-02 port 6 ")).hasSize(3);
    }

    @Test
    void linkInfoLongFormReadsLikeThePlainOne() {
        List<LinkState> plain = IbLinkInfo.parse(Fixtures.lines("fattree-faults", "iblinkinfo.txt"));
        List<LinkState> longForm = IbLinkInfo.parse(Fixtures.lines("fattree-faults", "iblinkinfo-l.txt"));

        assertThat(longForm).extracting(LinkState::guid, LinkState::port, LinkState::state, LinkState::width, LinkState::speed)
                .containsExactlyInAnyOrderElementsOf(plain.stream().map(l -> tuple(l.guid(), l.port(), l.state(), l.width(), l.speed())).toList());
        assertThat(plain).filteredOn(l -> l.width().equals("1X")).extracting(LinkState::speed).containsOnly("HDR");
        assertThat(plain).filteredOn(l -> l.speed().equals("EDR")).hasSize(2);
    }

    @Test
    void inputOfTheWrongKindIsOneClearError() {
        assertThatThrownBy(() -> IbNetDiscover.parse(Fixtures.lines("fattree", "iblinkinfo.txt")))
                .isInstanceOf(FabricInputException.class).hasMessage("no Switch or Ca record found: this is not ibnetdiscover output");
        assertThatThrownBy(() -> IbLinkInfo.parse(Fixtures.lines("fattree", "ibnetdiscover.txt")))
                .hasMessage("no port line found: this is not iblinkinfo output");
        assertThatThrownBy(() -> IbQueryErrors.parse(Fixtures.lines("fattree", "iblinkinfo.txt")))
                .hasMessage("no 'Errors for' or summary line found: this is not ibqueryerrors output");
    }
}
