package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.railyard.testkit.ExampleNodes;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DoctorCommandTest {
    @TempDir
    Path dir;

    private String node(String name) {
        return ExampleNodes.write(name, dir.resolve(name)).root().toString();
    }

    @Test
    void healthyNodeExitsZeroWithAReadableReport() {
        CommandRun run = CommandRun.of("doctor", "--root", node(ExampleNodes.ROCE), "--no-kubernetes");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out())
                .contains("railyard doctor: gpu-roce-01")
                .contains("4 RDMA devices, 4 ports, 8 GPUs")
                .contains("✅ gid               RoCE v2 IPv4 GID at index 3 on every port: NCCL_IB_GID_INDEX=3")
                .contains("➖ subnet-manager");
        assertThat(run.err()).isEmpty();
    }

    @Test
    void brokenNodeExitsOneWithEvidenceAndRemedy() {
        CommandRun run = CommandRun.of("doctor", "--root", node("broken/link"), "--no-kubernetes");

        assertThat(run.exitCode()).isOne();
        assertThat(run.out())
                .contains("❌ link              1 of 4 ports not active: port mlx5_3:1 is DOWN (phys_state Polling)")
                .contains("      mlx5_3:1: DOWN/Polling")
                .contains("      -> mlx5_3:1: no link partner: check the cable, the optic and the switch port")
                .contains("FAILED: ");
    }

    @Test
    void jsonHasTheDocumentedShape() throws Exception {
        CommandRun run = CommandRun.of("doctor", "--root", node("broken/mtu"), "--output", "json", "--no-kubernetes");

        JsonNode json = new ObjectMapper().readTree(run.out());
        assertThat(run.exitCode()).isOne();
        assertThat(json.path("status").asText()).isEqualTo("fail");
        assertThat(json.path("checks")).hasSize(16);
        JsonNode mtu = json.path("checks").get(4);
        assertThat(mtu.path("id").asText()).isEqualTo("mtu");
        assertThat(mtu.path("status").asText()).isEqualTo("fail");
        assertThat(mtu.path("summary").asText()).contains("eth2 MTU 1500");
        assertThat(mtu.path("details").isArray()).isTrue();
        assertThat(mtu.path("remedy").asText()).contains("ip link set <netdev> mtu 9000");
        JsonNode port = json.path("node").path("hcas").get(0).path("ports").get(0);
        assertThat(port.path("state").path("name").asText()).isEqualTo("ACTIVE");
        assertThat(port.path("linkLayer").asText()).isEqualTo("Ethernet");
        assertThat(port.path("netdev").path("mtu").asInt()).isEqualTo(9000);
        assertThat(port.has("dir")).isFalse();
        assertThat(json.path("node").path("gpus")).hasSize(8);
    }

    @Test
    void unknownAttributesCarryTheirReasonInJson() throws Exception {
        java.nio.file.Files.createDirectories(dir.resolve("sys"));

        CommandRun run = CommandRun.of("doctor", "--root", dir.toString(), "-o", "json", "--no-kubernetes");

        JsonNode json = new ObjectMapper().readTree(run.out());
        assertThat(json.path("node").path("memlock").path("unknown").asText()).isEqualTo("/proc/self/limits: missing");
    }

    @Test
    void missingRootIsAOneLineUsageError() {
        CommandRun run = CommandRun.of("doctor", "--root", dir.resolve("nope").toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("doctor: --root " + dir.resolve("nope") + " does not exist: give the host root (/) or a node tree\n");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void rootWithoutSysIsAUsageError() throws Exception {
        java.nio.file.Files.createDirectories(dir.resolve("empty"));

        CommandRun run = CommandRun.of("doctor", "--root", dir.resolve("empty").toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("has no readable sys directory").doesNotContain("Exception").hasLineCount(1);
    }

    @Test
    void rootThatIsAFileIsAUsageError() throws Exception {
        Path file = java.nio.file.Files.writeString(dir.resolve("a-file"), "x");

        CommandRun run = CommandRun.of("doctor", "--root", file.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("doctor: --root " + file + " is not a readable directory\n");
    }

    @Test
    void unknownFlagIsAOneLineUsageError() {
        CommandRun run = CommandRun.of("doctor", "--rooot=/");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("doctor: unknown option '--rooot=/': did you mean --root? (see railyard doctor --help)\n");
    }

    @Test
    void badOutputFormatIsAUsageError() {
        CommandRun run = CommandRun.of("doctor", "--output", "yaml");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--output").contains("yaml").hasLineCount(1);
    }

    @Test
    void envOptionChecksNcclVariables() {
        CommandRun run = CommandRun.of("doctor", "--root", node(ExampleNodes.TWELVE_HCAS), "--no-kubernetes",
                "--env", "NCCL_IB_HCA=mlx5_1");

        assertThat(run.out()).contains("NCCL_IB_HCA entry mlx5_1 is a prefix: it also matches mlx5_10, mlx5_11");
    }
}
