package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.javaoperatorsdk.operator.Operator;
import io.railyard.api.Names;
import io.railyard.operator.model.OperatorDefaults;
import io.railyard.operator.reconcile.TrainingJobReconciler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** submit and status against the fabric8 CRUD mock API server with the operator running beside it. */
@EnableKubernetesMockClient(crud = true)
class SubmitCommandTest {
    static KubernetesClient client;
    static Operator operator;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        operator = new Operator(o -> o.withKubernetesClient(client).withCloseClientOnStop(false)
                .withUseSSAToPatchPrimaryResource(false).withSSABasedCreateUpdateMatchForDependentResources(false));
        operator.register(new TrainingJobReconciler(new OperatorDefaults("railyard:test", "rdma/rdma"), (namespace, pod) -> Optional.empty(), Clock.systemUTC()));
        operator.start();
    }

    @AfterAll
    static void stop() {
        operator.stop();
    }

    private static List<Pod> pods(String job) {
        return client.pods().inNamespace("ns").withLabel(Names.JOB_LABEL, job).list().getItems();
    }

    private static void phase(Pod pod, String phase) {
        client.pods().inNamespace("ns").withName(pod.getMetadata().getName()).edit(p -> new PodBuilder(p)
                .editSpec().withNodeName("node-" + p.getMetadata().getName()).endSpec().withNewStatus().withPhase(phase).endStatus().build());
    }

    @Test
    void waitFollowsTheJobToSuccess() throws Exception {
        Path kubeconfig = MockKubeconfig.write(dir, client);
        Path job = Files.writeString(dir.resolve("job.yaml"), """
                apiVersion: railyard.io/v1alpha1
                kind: TrainingJob
                metadata: {name: sft}
                spec: {image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, scheduling: {scheduler: volcano, queue: q}}
                """);
        CompletableFuture<CommandRun> submit = CompletableFuture.supplyAsync(() -> CommandRun.of(
                "submit", "-f", job.toString(), "--wait", "--kubeconfig", kubeconfig.toString(), "--poll-ms", "100"));

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(pods("sft")).hasSize(2));
        pods("sft").forEach(pod -> phase(pod, "Running"));
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(CommandRun.of("status", "sft", "--kubeconfig",
                kubeconfig.toString()).out()).contains("sft: Running, scheduled 2 of 2, running 2 of 2, restarts 0"));
        pods("sft").forEach(pod -> phase(pod, "Succeeded"));

        CommandRun run = submit.get();
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).startsWith("trainingjob ns/sft created\n").contains("sft: Running").contains("sft: Succeeded");
        client.nodes().resource(new io.fabric8.kubernetes.api.model.NodeBuilder().withNewMetadata().withName("node-sft-1").endMetadata()
                .withNewStatus().addNewCondition().withType("Ready").withStatus("True").endCondition()
                .addNewCondition().withType("RdmaPortDown").withStatus("True").withReason("PortNotActive")
                .withMessage("mlx5_3 port 1: DOWN/Polling since 2026-01-01T00:00:00Z").endCondition()
                .addNewCondition().withType("RdmaPortErrors").withStatus("False").withReason("ErrorsWithinLimits").endCondition()
                .endStatus().build()).create();
        assertThat(CommandRun.of("status", "sft", "--kubeconfig", kubeconfig.toString()).out())
                .contains("  rank 0: sft-0 on node-sft-0", "  Succeeded=True AllRanksSucceeded")
                .contains("  rank 1: sft-1 on node-sft-1\n    node node-sft-1 RdmaPortDown: mlx5_3 port 1: DOWN/Polling since 2026-01-01T00:00:00Z\n")
                .doesNotContain("RdmaPortErrors");
    }

    @Test
    void statusShowsTheExcludedNodesAndTheLastRestartsByCause() throws Exception {
        // times from the clock, as the operator beside it reads them (an exclusion older than an hour is let go)
        java.time.Instant now = Clock.systemUTC().instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        String t0 = now.minusSeconds(180).toString();
        String t1 = now.minusSeconds(120).toString();
        String t2 = now.minusSeconds(60).toString();
        String t3 = now.toString();
        io.railyard.api.TrainingJob job = new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
                .readValue("""
                        apiVersion: railyard.io/v1alpha1
                        kind: TrainingJob
                        metadata: {name: bumpy, namespace: ns}
                        spec: {image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, monitoring: {ncclInspector: {enabled: true}}}
                        status:
                          phase: Failed
                          restarts: 4
                          jobFailures: 1
                          nodeFailures: 2
                          excludedNodes: [{node: gpu-7, reason: RdmaPortDown, since: "%3$s"}]
                          spares: {desired: 2, ready: 1}
                          performance: {busBandwidthGbps: 212.5, collective: AllReduce, size: 1 GiB, expectedGbps: 390.0, since: "%3$s",
                            slowRanks: [{rank: 1, pod: bumpy-1, node: gpu-2, percent: 55.1}]}
                          restartHistory:
                          - {time: "%1$s", cause: Preemption, reason: Preempted, pod: bumpy-0, message: "pod bumpy-0 failed"}
                          - {time: "%2$s", cause: Job, reason: ContainerFailed, pod: bumpy-1, exitCode: 1, message: "pod bumpy-1 container trainer exited with code 1 (Error)"}
                          - {time: "%3$s", cause: Node, reason: RdmaPortDown, node: gpu-7, pod: bumpy-0, message: "node gpu-7 RdmaPortDown: PortNotActive",
                             strategy: InPlace, restartedInPlace: 1, replaced: 1, recoverySeconds: 9}
                          - {time: "%4$s", cause: Node, reason: NodeNotReady, node: gpu-2, pod: bumpy-1, message: "node gpu-2 is NotReady"}
                        """.formatted(t0, t1, t2, t3), io.railyard.api.TrainingJob.class);
        client.resource(job).create();
        client.resource(job).updateStatus();

        String out = CommandRun.of("status", "bumpy", "--kubeconfig", MockKubeconfig.write(dir, client).toString()).out();

        assertThat(out).startsWith("bumpy: Failed, scheduled 0 of 2, running 0 of 2, restarts 4 (1 job, 2 node, 1 preemption), spares 1 of 2 ready\n")
                .contains("  NCCL Inspector: each pod's nccl-speed sidecar serves each interval's bus bandwidth on /metrics"
                        + " (railyard_nccl_bus_bandwidth_gbps)\n")
                .contains("  speed since " + t2 + ": AllReduce 1 GiB bus bandwidth 212.5 GB/s (preflight 390.0 GB/s)\n"
                        + "    slow rank 1: bumpy-1 on gpu-2 at 55.1% of the job's median\n")
                .contains("  excluded node gpu-7: RdmaPortDown since " + t2 + "\n")
                .contains("  restart at " + t1 + " (Job, ContainerFailed): pod bumpy-1 container trainer exited with code 1 (Error)\n")
                .contains("  restart at " + t2 + " (Node, RdmaPortDown): node gpu-7 RdmaPortDown: PortNotActive; in place: 1 pods kept,"
                        + " 1 replaced, running again after 9 s\n")
                .contains("  restart at " + t3 + " (Node, NodeNotReady): node gpu-2 is NotReady\n")
                .doesNotContain(t0 + " (Preemption");
    }

    @Test
    void invalidJobsAreRefusedBeforeTheyReachTheCluster() throws Exception {
        Path job = Files.writeString(dir.resolve("job.yaml"),
                "apiVersion: railyard.io/v1alpha1\nkind: TrainingJob\nmetadata: {name: bad}\nspec: {image: p, script: t.py, nodes: 0, gpusPerNode: 8}\n");

        CommandRun run = CommandRun.of("submit", "-f", job.toString(), "--kubeconfig", MockKubeconfig.write(dir, client).toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("spec.nodes: must be at least 1");
        assertThat(CommandRun.of("status", "bad", "--kubeconfig", MockKubeconfig.write(dir, client).toString()).err())
                .isEqualTo("status: no TrainingJob ns/bad\n");
    }
}
