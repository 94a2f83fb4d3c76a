package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * railyard speedup against the fabric8 CRUD mock API server (no real API server can be had here), with
 * {@link SpeedupCluster} playing scheduler and kubelets and giving the helper's logs of real tool outputs. The expected
 * figures are worked out by hand from those outputs.
 */
@EnableKubernetesMockClient(crud = true)
class SpeedupCommandTest {
    static KubernetesClient client;
    SpeedupCluster cluster;

    @TempDir
    Path dir;

    @BeforeEach
    void start() {
        client.nodes().delete();
        client.pods().inNamespace("ns").delete();
        cluster = new SpeedupCluster(client, "ns");
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    private CommandRun speedup(String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("speedup", "--kubeconfig=" + MockKubeconfig.write(dir, client), "-n", "ns", "--poll-ms=20"));
        args.addAll(List.of(more));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine.IFactory factory = new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> type) throws Exception {
                return type == SpeedupCommand.class ? type.cast(new SpeedupCommand(cluster.logs())) : CommandLine.defaultFactory().create(type);
            }
        };
        int code = Railyard.run(new PrintWriter(out, true), new PrintWriter(err, true), factory, args.toArray(String[]::new));
        return new CommandRun(code, out.toString(), err.toString());
    }

    @Test
    void fourHcasAPairPassBothClaimsWithTheFiguresWorkedOutByHand() throws Exception {
        SpeedupCluster.nodes(client, "gpu", 4, 4, Set.of());

        CommandRun run = speedup("--selector", "gpu=true");

        // RDMA: 4 × 92.57 = 370.28 Gb/s at 5.07% of 20 CPUs = 1.014 cores; TCP: 18.545 Gb/s at 0.977 cores (iperf3's 97.73%)
        // CPU per Gb/s: 1.014 / 370.28 = 0.0027385 against 0.977 / 18.545 = 0.052683: 5.2%
        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        assertThat(run.out()).contains("pair node-00 -> node-01\n"
                + "  RDMA  370.28 Gb/s, latency 1.47 µs, CPU per 100 Gb/s 0.274 cores sending, ? receiving\n"
                + "  TCP   18.55 Gb/s, latency 26.00 µs, CPU per 100 Gb/s 5.268 cores sending, 2.885 receiving, 5 retransmits\n"
                + "  RDMA/TCP: bandwidth 20×, latency 17.7× lower, CPU per Gb/s sending 5.2% of TCP's\n")
                .contains("sweep (median of 4 pairs): bandwidth RDMA/TCP 20×, latency 17.7× lower, CPU per Gb/s 5.2% of TCP's (the sending end)")
                .contains("PASS  RDMA CPU per Gb/s is 5.2% of TCP's, the sending end (median of 4 pairs; claim: < 10%)")
                .contains("PASS  RDMA moves 20× TCP's bandwidth between the same nodes (median of 4 pairs; claim: several times, ≥ 2×)");
        assertThat(run.err()).contains("4 nodes (4 with rdma/rdma), 4 pairs in 2 rounds, 4 HCA(s) each", "round 2 of 2: 2 of 2 pairs measured over RDMA and TCP");
        assertThat(client.pods().inNamespace("ns").list().getItems()).as("the sweep deletes its pods").isEmpty();
    }

    @Test
    void twoHcasAPairMissTheCpuClaimAndExitOne() throws Exception {
        SpeedupCluster.nodes(client, "gpu", 2, 2, Set.of());

        CommandRun run = speedup("--selector", "gpu=true", "-o", "json");

        // 1.014 / 185.14 = 0.0054769 against 0.052683: 10.4%, above 10%
        assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
        JsonNode report = new ObjectMapper().readTree(run.out());
        assertThat(report.path("passed").asBoolean()).isFalse();
        assertThat(report.path("sweep").path("cpuSharePercent").asDouble()).isEqualTo(10.396);
        assertThat(report.path("pairs").get(0).path("rdma").path("gbps").asDouble()).isEqualTo(185.14);
        assertThat(report.path("claims").get(0).path("line").asText())
                .isEqualTo("RDMA CPU per Gb/s is 10.4% of TCP's, the sending end (median of 1 pair; claim: < 10%)");
        assertThat(report.path("claims").get(0).path("holds").asBoolean()).isFalse();
    }

    @Test
    void aPairThatCannotRunOneSideSaysWhyAndIsLeftOutOfTheRatios() throws Exception {
        SpeedupCluster.nodes(client, "gpu", 8, 4, Set.of(3));
        cluster.unschedulable.add("node-01");
        cluster.withoutIperf3.add("node-05");

        CommandRun run = speedup("--selector", "gpu=true");

        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        assertThat(run.out())
                .contains("pair node-00 -> node-01\n  RDMA  server pod on node-01 unschedulable: 0/4 nodes are available")
                .contains("pair node-01 -> node-02\n  RDMA  client pod on node-01 unschedulable")
                .contains("pair node-02 -> node-03\n  RDMA  not measured: the pair has a node without an RDMA device\n  TCP   18.55 Gb/s")
                .contains("pair node-04 -> node-05\n  RDMA  370.28 Gb/s")
                .contains("  TCP   iperf3: unable to connect to server: Connection refused\n")
                .contains("pair node-05 -> node-06\n  RDMA  370.28 Gb/s")
                .contains("  TCP   cannot run iperf3: Cannot run program \"iperf3\": error=2, No such file or directory (is it in the image?)\n")
                .contains("speedup: 8 pair(s), 2 measured over both RDMA and TCP")
                .contains("sweep (median of 2 pairs): bandwidth RDMA/TCP 20×");
        assertThat(run.out().split("left out of the ratios", -1)).hasSize(7);
        assertThat(run.err()).contains("8 nodes (7 with rdma/rdma)");
    }

    @Test
    void usageErrorsAreOneLineAndExitTwo() throws Exception {
        SpeedupCluster.nodes(client, "gpu", 2, 1, Set.of());
        CommandRun alone = speedup("--node", "node-00");
        assertThat(alone.exitCode()).isEqualTo(2);
        assertThat(alone.err()).isEqualTo("speedup: 1 node selected: a speed-up is measured between two nodes at least\n");
        assertThat(speedup("--selector", "gpu=true", "--duration", "300").err()).startsWith("speedup: --timeout 600 and --duration 300:");
    }
}
