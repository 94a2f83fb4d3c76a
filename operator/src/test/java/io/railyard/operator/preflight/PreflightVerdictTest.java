package io.railyard.operator.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PreflightVerdictTest {
    private static final List<String> NODES = IntStream.range(0, 6).mapToObj(i -> "node-" + i).toList();

    /** A ring of six at the given rates (Gb/s sent by node i to node i+1) on 200 Gb/s ports. */
    private static List<Link> ring(double... gbps) {
        List<Link> links = new ArrayList<>();
        for (int i = 0; i < NODES.size(); i++) {
            links.add(Link.measured(NODES.get(i), NODES.get((i + 1) % NODES.size()), "mlx5_0", "mlx5_0", gbps[i], 200.0, 80));
        }
        return links;
    }

    @Test
    void everyLinkFastPasses() {
        PreflightVerdict verdict = PreflightVerdict.judge(NODES, ring(197, 196, 198, 195, 197, 190), Map.of());

        assertThat(verdict.passed()).isTrue();
        assertThat(verdict.nodes()).allSatisfy(node -> assertThat(node.verdict()).isEqualTo("ok"));
        assertThat(verdict.summary()).isEqualTo("6 links at or above the minimum (slowest 95.0% of line rate)");
    }

    @Test
    void aNodeWhoseBothLinksAreSlowIsTheSuspect() {
        // node-3 receives from node-2 and sends to node-4: both slow
        PreflightVerdict verdict = PreflightVerdict.judge(NODES, ring(197, 196, 61, 58, 197, 196), Map.of());

        assertThat(verdict.passed()).isFalse();
        assertThat(verdict.nodes()).filteredOn(node -> !node.ok()).singleElement().satisfies(node -> {
            assertThat(node.node()).isEqualTo("node-3");
            assertThat(node.verdict()).isEqualTo("suspect");
            assertThat(node.reason()).isEqualTo("all 2 of its links (to node-2, node-4) are slow or failed");
        });
        assertThat(verdict.links().getFirst().verdict()).isEqualTo(Link.Verdict.SLOW);
        assertThat(verdict.summary()).startsWith("node-3 suspect");
    }

    @Test
    void oneSlowLinkBetweenHealthyNodesIsTheLinks() {
        PreflightVerdict verdict = PreflightVerdict.judge(NODES, ring(197, 196, 100, 195, 197, 196), Map.of());

        assertThat(verdict.passed()).isFalse();
        assertThat(verdict.nodes()).allSatisfy(node -> assertThat(node.verdict()).isEqualTo("ok"));
        assertThat(verdict.summary()).isEqualTo("link node-2 mlx5_0 -> node-3 slow: 100.0 Gb/s is 50.0% of the 200 Gb/s line rate, below 80%");
    }

    @Test
    void aNodeWhosePodCouldNotRunHasFailedAndOneLeftOutIsNamed() {
        List<Link> links = new ArrayList<>(ring(197, 196, 198, 195, 197, 196).subList(0, 4));
        links.add(Link.failed("node-4", "node-5", null, "client pod on node-4 unschedulable: 0/6 nodes are available", "node-4"));

        PreflightVerdict verdict = PreflightVerdict.judge(NODES, links, Map.of("node-5", "offers no rdma/rdma"));

        assertThat(verdict.nodes()).filteredOn(node -> !node.ok()).extracting(PreflightVerdict.NodeVerdict::node, PreflightVerdict.NodeVerdict::verdict)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("node-4", "failed"), org.assertj.core.groups.Tuple.tuple("node-5", "failed"));
    }

    @Test
    void withoutALineRateALinkIsNotJudged() {
        Link link = Link.measured("a", "b", "mlx5_0", null, 12.5, null, 80);

        assertThat(link.ok()).isTrue();
        assertThat(link.percent()).isNull();
        assertThat(link.reason()).isEqualTo("line rate unknown: not judged");
    }
}
