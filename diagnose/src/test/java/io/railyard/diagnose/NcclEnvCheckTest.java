package io.railyard.diagnose;

import static io.railyard.diagnose.DoctorExamplesTest.check;
import static io.railyard.diagnose.DoctorExamplesTest.doctor;
import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.testkit.ExampleNodes;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NcclEnvCheckTest {
    @TempDir
    Path dir;

    private CheckResult run(String node, Map<String, String> env) {
        return check(doctor(ExampleNodes.write(node, dir).root(), env), "nccl-env");
    }

    @Test
    void unsetSuggestsTheExactVariables() {
        CheckResult result = run(ExampleNodes.ROCE, Map.of());

        assertThat(result.status()).isEqualTo(CheckStatus.OK);
        assertThat(result.details()).containsExactly(
                "for exactly this node's active ports: NCCL_IB_HCA==mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1 NCCL_IB_GID_INDEX=3");
    }

    @Test
    void matchingVariablesPass() {
        CheckResult result = run(ExampleNodes.ROCE, Map.of(
                "NCCL_IB_HCA", "=mlx5_1:1,mlx5_2:1", "NCCL_IB_GID_INDEX", "3", "NCCL_SOCKET_IFNAME", "eth0"));

        assertThat(result.status()).isEqualTo(CheckStatus.OK);
        assertThat(result.summary()).contains("2 ports selected");
    }

    @Test
    void prefixTrapOnTwelveHcas() {
        CheckResult result = run(ExampleNodes.TWELVE_HCAS, Map.of("NCCL_IB_HCA", "mlx5_1,mlx5_2"));

        assertThat(result.status()).isEqualTo(CheckStatus.WARN);
        assertThat(result.summary()).contains("NCCL_IB_HCA entry mlx5_1 is a prefix: it also matches mlx5_10, mlx5_11");
        assertThat(result.remedy()).contains("start the list with '='");
    }

    @Test
    void unknownHcaAndInactivePortFail() {
        CheckResult result = run("broken/link", Map.of("NCCL_IB_HCA", "=mlx5_3:1,mlx5_9:1"));

        assertThat(result.status()).isEqualTo(CheckStatus.FAIL);
        assertThat(result.summary())
                .contains("NCCL_IB_HCA names mlx5_9, which this node does not have")
                .contains("NCCL_IB_HCA lists mlx5_3:1, which is DOWN/Polling");
    }

    @Test
    void gidIndexThatIsNotRoceV2Ipv4Fails() {
        CheckResult result = run(ExampleNodes.ROCE, Map.of("NCCL_IB_GID_INDEX", "1"));

        assertThat(result.status()).isEqualTo(CheckStatus.FAIL);
        assertThat(result.summary()).contains("NCCL_IB_GID_INDEX=1 on mlx5_1:1 is fe80:0000:0000:0000:ba3f:d2ff:fea1:2b00 RoCE v2, not a RoCE v2 IPv4 GID");
    }

    @Test
    void gidIndexBeyondTheTableFails() {
        CheckResult result = run(ExampleNodes.ROCE, Map.of("NCCL_IB_GID_INDEX", "7"));

        assertThat(result.summary()).contains("NCCL_IB_GID_INDEX=7 is empty on mlx5_1:1");
    }

    @Test
    void socketInterfaceMustExistAndBeReachable() {
        assertThat(run(ExampleNodes.ROCE, Map.of("NCCL_SOCKET_IFNAME", "bond0")).summary())
                .contains("NCCL_SOCKET_IFNAME=bond0 matches no interface on this node");
        CheckResult loopback = run(ExampleNodes.ROCE, Map.of("NCCL_SOCKET_IFNAME", "lo"));
        assertThat(loopback.status()).isEqualTo(CheckStatus.WARN);
        assertThat(loopback.summary()).contains("selects only lo");
    }

    @Test
    void disablingRdmaFails() {
        CheckResult result = run(ExampleNodes.INFINIBAND, Map.of("NCCL_IB_DISABLE", "1", "NCCL_NET", "Socket"));

        assertThat(result.status()).isEqualTo(CheckStatus.FAIL);
        assertThat(result.summary()).contains("NCCL_IB_DISABLE=1 turns RDMA off").contains("NCCL_NET=Socket forces TCP sockets");
    }

    @Test
    void otherVariablesAreIgnored() {
        assertThat(run(ExampleNodes.ROCE, Map.of("PATH", "/usr/bin", "NCCL_DEBUG", "INFO")).status()).isEqualTo(CheckStatus.OK);
    }
}
