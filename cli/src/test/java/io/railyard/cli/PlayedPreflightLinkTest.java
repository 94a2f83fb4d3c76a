package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.railyard.cli.up.PreflightHelper;
import io.railyard.operator.preflight.PreflightPods;
import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gate of a sandbox's training pod: the real helper with the arguments the operator gives the init container, on
 * an example node's tree, its ib_write_bw played from testdata/perftest.
 */
class PlayedPreflightLinkTest {
    private static final Path REPO = Path.of(System.getProperty("railyard.repo", ".."));
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static List<String> gateArgs() {
        PreflightPods.Settings settings = new PreflightPods.Settings("railyard", "rdma/rdma", 8, false, 300, 5);
        return PreflightPods.gate("llama-sft-1.llama-sft.training.svc", PreflightPods.PORT_BASE, 90, settings).getArgs();
    }

    @Test
    void anNdrNodeSendsAtItsLineRateOnEveryHca() throws Exception {
        HostTree node = ExampleNodes.write(ExampleNodes.INFINIBAND, dir);

        PreflightHelper.Outcome outcome = new PlayedPreflightLink(REPO).run(gateArgs(), node.root(), 8);

        assertThat(outcome.exitCode()).as(outcome.log()).isEqualTo(0);
        JsonNode links = JSON.readTree(outcome.message()).path("links");
        assertThat(links).hasSize(8).allSatisfy(link -> {
            assertThat(link.path("verdict").asText()).isEqualTo("ok");
            assertThat(link.path("gbps").asDouble()).isEqualTo(391.85);
            assertThat(link.path("lineRateGbps").asDouble()).isEqualTo(400.0);
        });
        assertThat(outcome.log()).contains("railyard-preflight: begin role=client index=7 hca=mlx5_7 port=1 rate-gbps=400 "
                + "peer=llama-sft-1.llama-sft.training.svc", "Waiting for client to connect");
    }

    @Test
    void aPortDownOnTheNodeFailsItsLinkAndTheGate() throws Exception {
        HostTree node = ExampleNodes.write(ExampleNodes.INFINIBAND, dir);
        node.file(node.portDir("mlx5_3", 1) + "/state", "1: DOWN");

        PreflightHelper.Outcome outcome = new PlayedPreflightLink(REPO).run(gateArgs(), node.root(), 4);

        assertThat(outcome.exitCode()).isEqualTo(1);
        JsonNode links = JSON.readTree(outcome.message()).path("links");
        assertThat(links).hasSize(4);
        assertThat(links.get(3).path("hca").asText()).isEqualTo("mlx5_3");
        assertThat(links.get(3).path("verdict").asText()).isEqualTo("failed");
        assertThat(links.get(3).path("reason").asText()).contains("Couldn't connect");
        assertThat(outcome.log()).contains("railyard-preflight: failed mlx5_3 -> llama-sft-1.llama-sft.training.svc");
    }
}
