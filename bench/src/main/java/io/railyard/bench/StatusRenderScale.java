package io.railyard.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import io.railyard.cli.Railyard;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * {@code railyard status} of an N-rank TrainingJob against the fabric8 CRUD mock API server (no real API server can be
 * had here), with its N nodes, and {@code railyard render} of the same job: wall time, the status command's requests
 * and the render's output. Arguments: RANKS RUNS.
 */
public final class StatusRenderScale {
    private StatusRenderScale() {}

    public static void main(String[] args) throws Exception {
        int ranks = Integer.parseInt(args[0]);
        int runs = Integer.parseInt(args[1]);
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        server.init();
        Path dir = Files.createTempDirectory("status-scale");
        try (KubernetesClient client = server.createClient()) {
            try (ExecutorService creators = Executors.newFixedThreadPool(16)) {
                for (int i = 0; i < ranks; i++) {
                    String name = String.format("gpu-%05d", i);
                    creators.submit(() -> client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name)
                            .addToLabels(Names.RDMA_NODE_LABEL, "true").endMetadata().withNewStatus().addNewCondition().withType("Ready")
                            .withStatus("True").endCondition().addNewCondition().withType("RdmaPortDown")
                            .withStatus(name.endsWith("7") ? "True" : "False").withMessage("mlx5_3:1 DOWN").endCondition().endStatus().build()).create());
                }
            }
            String spec = "apiVersion: railyard.io/v1alpha1\nkind: TrainingJob\nmetadata: {name: big, namespace: bench}\n"
                    + "spec: {image: pytorch, script: train.py, nodes: " + ranks + ", gpusPerNode: 8, rdma: {devicesPerNode: 8}}\n";
            Path file = dir.resolve("big.yaml");
            Files.writeString(file, spec);
            TrainingJob job = new ObjectMapper(new YAMLFactory()).readValue(spec, TrainingJob.class);
            client.resource(job).create();
            TrainingJobStatus status = new TrainingJobStatus();
            status.phase = "Running";
            status.ranks = new ArrayList<>();
            for (int i = 0; i < ranks; i++) {
                TrainingJobStatus.Rank rank = new TrainingJobStatus.Rank();
                rank.rank = i;
                rank.pod = "big-" + i;
                rank.node = String.format("gpu-%05d", i);
                status.ranks.add(rank);
            }
            job.setStatus(status);
            client.resource(job).updateStatus();
            Path kubeconfig = dir.resolve("kubeconfig");
            Files.writeString(kubeconfig, "apiVersion: v1\nkind: Config\nclusters:\n- name: mock\n  cluster: {server: '"
                    + client.getConfiguration().getMasterUrl() + "', insecure-skip-tls-verify: true}\ncontexts:\n- name: mock\n"
                    + "  context: {cluster: mock, user: mock, namespace: bench}\ncurrent-context: mock\nusers:\n- name: mock\n  user: {token: x}\n");
            List<Double> statusSeconds = new ArrayList<>();
            List<Double> renderSeconds = new ArrayList<>();
            for (int run = 0; run < runs; run++) {
                int before = server.getRequestCount();
                StringWriter out = new StringWriter();
                long start = System.nanoTime();
                StringWriter err = new StringWriter();
                int code = Railyard.run(new PrintWriter(out), new PrintWriter(err), "status", "big", "--kubeconfig", kubeconfig.toString());
                if (code != 0) {
                    System.out.println("status failed: " + err);
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                statusSeconds.add(seconds);
                System.out.printf("status of %d ranks: exit %d in %.2f s, %d requests, %d lines%n", ranks, code, seconds,
                        server.getRequestCount() - before, out.toString().lines().count());
                StringWriter rendered = new StringWriter();
                start = System.nanoTime();
                code = Railyard.run(new PrintWriter(rendered), new PrintWriter(new StringWriter()), "render", "-f", file.toString());
                seconds = (System.nanoTime() - start) / 1e9;
                renderSeconds.add(seconds);
                System.out.printf("render of %d ranks: exit %d in %.2f s, %d MB of YAML%n", ranks, code, seconds, rendered.toString().length() >> 20);
            }
            System.out.printf("median: status %.2f s (budget 1 s), render %.2f s (budget 3 s)%n", median(statusSeconds), median(renderSeconds));
        } finally {
            server.destroy();
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
