package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import io.railyard.cli.pictures.PreflightHeatmap;
import io.railyard.operator.model.OperatorDefaults;
import io.railyard.operator.model.TrainingJobModel;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What keeps status, render and the preflight report within their budgets at 12,500 (bench/status-render-scale.sh,
 * bench/preflight-plan-scale.sh), pinned at small sizes: status reads a large job's nodes with one list, render streams
 * each object as the YAML fabric8 writes, and the heatmap draws a sweep's links rather than every pair of nodes.
 */
@EnableKubernetesMockClient(crud = true)
class ScaleBehaviourTest {
    static KubernetesClient client;
    static KubernetesMockServer server;

    @TempDir
    Path dir;

    @Test
    void statusOfALargeJobListsTheNodesOnceInsteadOfOneRequestEach() throws Exception {
        int ranks = StatusCommand.FEW_NODES + 8;
        TrainingJob job = new ObjectMapper(new YAMLFactory()).readValue("""
                apiVersion: railyard.io/v1alpha1
                kind: TrainingJob
                metadata: {name: wide, namespace: ns}
                spec: {image: pytorch, script: t.py, nodes: %d, gpusPerNode: 8}
                """.formatted(ranks), TrainingJob.class);
        client.resource(job).create();
        job.setStatus(new TrainingJobStatus());
        job.getStatus().ranks = new ArrayList<>();
        for (int i = 0; i < ranks; i++) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-" + i).endMetadata().withNewStatus()
                    .addNewCondition().withType("RdmaPortDown").withStatus(i == 3 ? "True" : "False").withMessage("mlx5_3:1 DOWN").endCondition()
                    .endStatus().build()).create();
            TrainingJobStatus.Rank rank = new TrainingJobStatus.Rank();
            rank.rank = i;
            rank.pod = "wide-" + i;
            rank.node = "gpu-" + i;
            job.getStatus().ranks.add(rank);
        }
        client.resource(job).updateStatus();
        drain();

        CommandRun run = CommandRun.of("status", "wide", "-n", "ns", "--kubeconfig", MockKubeconfig.write(dir, client).toString());

        assertThat(run.out()).contains("  rank 3: wide-3 on gpu-3\n    node gpu-3 RdmaPortDown: mlx5_3:1 DOWN\n");
        List<String> nodeRequests = drain().stream().filter(path -> path.startsWith("/api/v1/nodes")).toList();
        assertThat(nodeRequests).singleElement().satisfies(path -> assertThat(path).doesNotContain("/nodes/"));
    }

    @Test
    void renderWritesTheYamlOfFabric8ObjectByObject() throws Exception {
        Path file = dir.resolve("job.yaml");
        Files.writeString(file, "apiVersion: railyard.io/v1alpha1\nkind: TrainingJob\nmetadata: {name: two, namespace: ns}\n"
                + "spec: {image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, rdma: {devicesPerNode: 8},"
                + " monitoring: {ncclInspector: {enabled: true}}, scheduling: {scheduler: volcano}}\n");
        TrainingJob job = new ObjectMapper(new YAMLFactory()).readValue(file.toFile(), TrainingJob.class);
        StringBuilder whole = new StringBuilder();
        // render's cluster is the newest the operator knows, whose pods restart in place
        for (HasMetadata object : TrainingJobModel.desired(job, OperatorDefaults.STANDARD.withInPlaceRestart(true)).objects()) {
            whole.append(Serialization.asYaml(object));
        }

        CommandRun run = CommandRun.of("render", "-f", file.toString());

        assertThat(run.exitCode()).isZero();
        // the same documents; render never folds a long string over two lines as SnakeYAML does past 80 columns
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        assertThat(yaml.readerFor(com.fasterxml.jackson.databind.JsonNode.class).readValues(run.out()).readAll())
                .isEqualTo(yaml.readerFor(com.fasterxml.jackson.databind.JsonNode.class).readValues(whole.toString()).readAll());
        assertThat(run.out()).contains("- \"echo \\\"$RAILYARD_GPU_NICS\\\" > /var/run/railyard/nccl-inspector/.gpu-nics && exec torchrun \\\"$@\\\"\"\n");
    }

    @Test
    void thePreflightHeatmapOfARingDrawsItsLinksNotEveryPairOfNodes() {
        List<String> nodes = new ArrayList<>();
        List<io.railyard.operator.preflight.Link> links = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            nodes.add(String.format("gpu-%03d", i));
        }
        for (int i = 0; i < 300; i++) {
            links.add(new io.railyard.operator.preflight.Link(nodes.get(i), nodes.get((i + 1) % 300), "mlx5_0", "mlx5_0", 390.0, 400.0, 97.5,
                    io.railyard.operator.preflight.Link.Verdict.OK, null, null));
        }

        io.railyard.operator.preflight.PreflightVerdict verdict = io.railyard.operator.preflight.PreflightVerdict.judge(nodes, links, java.util.Map.of());
        String html = PreflightHeatmap.html(verdict, Json.write(io.railyard.operator.preflight.PreflightReport.json(verdict)));

        long rects = html.split("<rect", -1).length - 1L;
        assertThat(rects).as("the grey ground, the diagonal and the links; 90,000 cells drawn one by one before").isEqualTo(1 + 300 + 300);
        assertThat(html.split("class=\"cell\"", -1).length - 1).isEqualTo(300);
    }

    /** The paths of the requests the server recorded since the last drain. */
    private static List<String> drain() throws InterruptedException {
        List<String> paths = new ArrayList<>();
        for (RecordedRequest request; (request = server.takeRequest(10, TimeUnit.MILLISECONDS)) != null; ) {
            paths.add(request.getPath());
        }
        return paths;
    }
}
