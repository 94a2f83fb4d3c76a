package io.railyard.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.node.NodeDiscovery;
import io.railyard.testkit.ExampleNodes;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The doctor on every example node: healthy ones pass, each broken one fails (or warns) the check it breaks. */
class DoctorExamplesTest {
    @TempDir
    Path dir;

    static DoctorReport doctor(Path root, Map<String, String> environment) {
        return Doctor.run(new DoctorInput(NodeDiscovery.discover(root), environment, List.of(), "rdma/rdma",
                new ClusterAccess.NoCredentials("no kubeconfig and no in-cluster credentials")));
    }

    static CheckResult check(DoctorReport report, String id) {
        return report.checks().stream().filter(c -> c.id().equals(id)).findFirst().orElseThrow();
    }

    @ParameterizedTest
    @CsvSource({"roce-8gpu", "ib-8gpu", "roce-12hca"})
    void healthyNodesFailNothing(String name) {
        DoctorReport report = doctor(ExampleNodes.write(name, dir).root(), Map.of());

        assertThat(report.checks()).extracting(CheckResult::id).containsExactly("driver", "devices", "subnet-manager",
                "link", "mtu", "gid", "traffic-class", "pkey", "nccl-env", "nccl-tuning", "gpu-nic-affinity", "virtual-topology", "gpudirect", "memlock", "kubernetes", "perftest");
        assertThat(report.checks()).filteredOn(c -> c.status() == CheckStatus.FAIL).isEmpty();
        assertThat(report.status()).isEqualTo(CheckStatus.WARN); // perftest is not on the empty PATH
        assertThat(check(report, "perftest").status()).isEqualTo(CheckStatus.WARN);
        assertThat(check(report, "kubernetes").status()).isEqualTo(CheckStatus.SKIP);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "broken/driver           | driver           | FAIL | missing RDMA kernel modules: rdma_ucm",
        "broken/devices          | devices          | FAIL | /dev/infiniband/uverbs2 (mlx5_3) is missing",
        "broken/subnet-manager   | subnet-manager   | FAIL | no subnet manager has configured mlx5_0:1",
        "broken/link             | link             | FAIL | port mlx5_3:1 is DOWN (phys_state Polling)",
        "broken/mtu              | mtu              | FAIL | RoCE MTU below 4096 on mlx5_2:1 (eth2 MTU 1500, RoCE MTU 1024)",
        "broken/gid              | gid              | FAIL | no RoCE v2 IPv4 GID on mlx5_4:1",
        "broken/gpu-nic-affinity | gpu-nic-affinity | WARN | 8 of 8 GPUs have no RDMA NIC under their PCIe switch",
        "broken/gpudirect        | gpudirect        | FAIL | GPUDirect RDMA is not possible",
        "broken/memlock          | memlock          | FAIL | memlock limited to 64 KiB",
    })
    void eachBrokenNodeTripsItsCheck(String name, String id, CheckStatus status, String summary) {
        DoctorReport report = doctor(ExampleNodes.write(name, dir).root(), Map.of());

        CheckResult result = check(report, id);
        assertThat(result.status()).isEqualTo(status);
        assertThat(result.summary()).contains(summary);
        assertThat(result.remedy()).isNotBlank();
        if (status == CheckStatus.FAIL) {
            assertThat(report.status()).isEqualTo(CheckStatus.FAIL);
        }
    }

    @Test
    void noSubnetManagerAlsoShowsInTheLinkCheck() {
        DoctorReport report = doctor(ExampleNodes.write("broken/subnet-manager", dir).root(), Map.of());

        assertThat(check(report, "link").remedy()).contains("a subnet manager must configure it");
        assertThat(check(report, "subnet-manager").details()).contains("mlx5_3:1: INIT/LinkUp, LID 0xffff, SM LID 0x0");
    }

    @Test
    void anEmptyNodeFailsDevicesAndSkipsWhatNeedsPorts() {
        DoctorReport report = doctor(dir, Map.of());

        assertThat(check(report, "devices").status()).isEqualTo(CheckStatus.FAIL);
        assertThat(check(report, "driver").status()).isEqualTo(CheckStatus.FAIL);
        assertThat(check(report, "link").status()).isEqualTo(CheckStatus.SKIP);
        assertThat(check(report, "gpu-nic-affinity").status()).isEqualTo(CheckStatus.SKIP);
        assertThat(check(report, "memlock").status()).isEqualTo(CheckStatus.WARN);
    }
}
