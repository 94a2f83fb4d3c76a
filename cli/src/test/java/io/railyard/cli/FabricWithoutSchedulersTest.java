package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fabric CronJob's run on a cluster without Volcano or Kueue: the fabric8 mock API server in expectation mode, which
 * answers 404 for an API the cluster does not serve (the CRUD mode serves every path).
 */
@EnableKubernetesMockClient
class FabricWithoutSchedulersTest {
    private static final Path IBSIM = Path.of(System.getProperty("railyard.repo", "..")).resolve("testdata/ibsim");
    static KubernetesClient client;
    static KubernetesMockServer server;

    @TempDir
    Path dir;

    @Test
    void schedulerObjectsTheClusterDoesNotServeAreSkippedInOneLineAndTheLabelsStillWritten() throws Exception {
        server.expect().get().withPath("/api/v1/nodes/gpu-node-01").andReturn(200,
                new NodeBuilder().withNewMetadata().withName("gpu-node-01").endMetadata().build()).always();
        server.expect().patch().withPath("/api/v1/nodes/gpu-node-01").andReturn(200,
                new NodeBuilder().withNewMetadata().withName("gpu-node-01").endMetadata().build()).once();
        server.expect().get().withPath("/apis/topology.volcano.sh/v1alpha1/hypernodes").andReturn(404, "").always();
        server.expect().get().withPath("/apis/kueue.x-k8s.io/v1beta1/topologies/railyard-infiniband").andReturn(404, "").always();

        CommandRun run = CommandRun.of("fabric", "--ibnetdiscover", IBSIM.resolve("single-switch/ibnetdiscover.txt").toString(),
                "--labels", "--hyper-nodes", "--kueue-topology", "--apply", "--exit-zero", "--kubeconfig", MockKubeconfig.write(dir, client).toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("node/gpu-node-01 labelled railyard.io/ib-leaf=");
        assertThat(run.err()).contains("fabric: the cluster has no HyperNode API (topology.volcano.sh/v1alpha1): skipped; install Volcano 1.12 or later")
                .doesNotContain("Exception");
    }

    @Test
    void exitZeroKeepsErrorFindingsInTheOutputAndOutOfTheExitCode() {
        String faults = IBSIM.resolve("fattree-faults").toString();
        String[] args = {"fabric", "--ibnetdiscover", faults + "/ibnetdiscover.txt", "--iblinkinfo", faults + "/iblinkinfo.txt",
            "--ibqueryerrors", faults + "/ibqueryerrors.txt"};

        CommandRun failing = CommandRun.of(args);
        CommandRun reporting = CommandRun.of(java.util.stream.Stream.concat(java.util.Arrays.stream(args), java.util.stream.Stream.of("--exit-zero"))
                .toArray(String[]::new));

        assertThat(failing.exitCode()).isEqualTo(1);
        assertThat(reporting.exitCode()).isZero();
        assertThat(reporting.out()).isEqualTo(failing.out()).contains("❌");
    }
}
