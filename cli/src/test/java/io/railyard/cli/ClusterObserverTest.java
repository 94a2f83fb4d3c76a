package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.railyard.testkit.ExampleNodes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/** The kubernetes check against the fabric8 CRUD mock API server (no real API server can be had in tests). */
@EnableKubernetesMockClient(crud = true)
class ClusterObserverTest {
    static KubernetesClient client;

    @TempDir
    Path dir;
    Path kubeconfig;

    @BeforeEach
    void writeKubeconfig() throws Exception {
        client.pods().inAnyNamespace().delete();
        client.apps().daemonSets().inAnyNamespace().delete();
        client.apps().daemonSets().inNamespace("railyard").resource(new DaemonSetBuilder()
                .withNewMetadata().withName("railyard-agent").withNamespace("railyard").endMetadata()
                .withNewSpec().withNewSelector().addToMatchLabels("app.kubernetes.io/name", "railyard-agent").endSelector()
                .endSpec().build()).create();
        kubeconfig = MockKubeconfig.write(dir, client);
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-roce-01").endMetadata()
                .withNewStatus().withAllocatable(Map.of("rdma/rdma", new Quantity("4"), "nvidia.com/gpu", new Quantity("8")))
                .endStatus().build()).createOr(existing -> existing.update());
    }

    private void pluginPod(String name, String nodeName, boolean ready) {
        client.pods().inNamespace("railyard").resource(new PodBuilder()
                .withNewMetadata().withName(name).withNamespace("railyard")
                .addToLabels("app.kubernetes.io/name", "railyard-agent").endMetadata()
                .withNewSpec().withNodeName(nodeName).addNewContainer().withName("agent").withImage("railyard").endContainer().endSpec()
                .withNewStatus().withPhase("Running").addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").endCondition()
                .endStatus().build()).create();
    }

    private CommandRun doctor(String... extra) {
        String root = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("node")).root().toString();
        String[] args = new String[] {"doctor", "--root", root, "--kubeconfig", kubeconfig.toString()};
        String[] all = java.util.Arrays.copyOf(args, args.length + extra.length);
        System.arraycopy(extra, 0, all, args.length, extra.length);
        return CommandRun.of(all);
    }

    @Test
    void readyPluginAndAllocatableResourcePass() {
        pluginPod("railyard-agent-x7k2p", "gpu-roce-01", true);
        pluginPod("railyard-agent-q9w8e", "gpu-roce-02", false);

        CommandRun run = doctor();

        assertThat(run.out()).contains("✅ kubernetes        gpu-roce-01 offers 4 rdma/rdma through a ready device plugin");
    }

    @Test
    void pluginOnAnotherNodeOnlyIsAFailure() {
        pluginPod("railyard-agent-q9w8e", "gpu-roce-02", true);

        CommandRun run = doctor();

        assertThat(run.exitCode()).isOne();
        assertThat(run.out()).contains("❌ kubernetes        no RDMA device plugin pod runs on gpu-roce-01");
    }

    @Test
    void podsOfOtherDaemonSetsAreNotPlugins() {
        client.pods().inNamespace("monitoring").resource(new PodBuilder()
                .withNewMetadata().withName("node-exporter-abcde").withNamespace("monitoring").addToLabels("app", "node-exporter").endMetadata()
                .withNewSpec().withNodeName("gpu-roce-01").endSpec().build()).create();

        assertThat(doctor().out()).contains("no RDMA device plugin pod runs on gpu-roce-01");
    }

    @Test
    void nodeNameOptionPicksTheNode() {
        CommandRun run = doctor("--node-name", "gpu-roce-77");

        assertThat(run.out()).contains("node gpu-roce-77 is not in the cluster");
    }

    private CommandRun doctorWithKubeconfigVariable(String variable) {
        String root = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("node")).root().toString();
        return CommandRun.of("doctor", "--root", root, "--env", "KUBECONFIG=" + variable);
    }

    @Test
    void aStaleKubeconfigVariableCostsOnlyTheKubernetesCheck() {
        String missing = dir.resolve("gone/config").toString();

        CommandRun run = doctorWithKubeconfigVariable(missing);

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("✅ link").contains("✅ nccl-env")
                .contains("⚠️  kubernetes        cannot ask the Kubernetes API: KUBECONFIG=" + missing + " names no file that exists");
    }

    @Test
    void aKubeconfigListIsMergedAsKubectlDoesSkippingMissingFiles() throws Exception {
        pluginPod("railyard-agent-x7k2p", "gpu-roce-01", true);
        Path extra = Files.writeString(dir.resolve("extra"), """
                apiVersion: v1
                kind: Config
                users:
                - name: someone-else
                  user: {token: other}
                """);
        String list = String.join(java.io.File.pathSeparator, dir.resolve("missing").toString(), extra.toString(), kubeconfig.toString());

        CommandRun run = doctorWithKubeconfigVariable(list);

        assertThat(run.out()).as(run.err()).contains("✅ kubernetes        gpu-roce-01 offers 4 rdma/rdma through a ready device plugin");
    }

    @Test
    void unreadableKubeconfigIsAUsageError() {
        kubeconfig = dir.resolve("missing-kubeconfig");

        CommandRun run = doctor();

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("doctor: --kubeconfig " + kubeconfig + ": no such file\n").hasLineCount(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "clusters: [", "apiVersion: v1\nkind: Config\n"})
    void aKubeconfigThatNamesNoClusterIsAUsageError(String content) throws Exception {
        Files.writeString(kubeconfig, content);

        CommandRun run = doctor();

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).startsWith("doctor: the kubeconfig " + kubeconfig + " is not one that names a cluster").hasLineCount(1);
    }

    @Test
    void unreachableApiServerWarns() throws Exception {
        Files.writeString(kubeconfig, Files.readString(kubeconfig).replace(client.getMasterUrl().toString(), "https://127.0.0.1:1/"));

        CommandRun run = doctor();

        assertThat(run.out()).contains("⚠️  kubernetes        cannot ask the Kubernetes API: https://127.0.0.1:1/");
    }
}
