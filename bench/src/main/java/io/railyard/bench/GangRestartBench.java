package io.railyard.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.operator.PlayedScheduler;
import io.railyard.operator.reconcile.TrainingJobReconciler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A gang routed around a failed node, on the fabric8 CRUD mock API server (no real API server can be had here) with
 * the tests' played scheduler: for 128- and 1,024-node gangs, the time from a member's node turning RdmaPortDown True
 * to every pod of the new run created, as a ratio to a plain client creating as many pods on the same server; the
 * operator's API requests for the restart by verb; and its requests and reconciles over a steady interval of the
 * running gangs (nodes come from its informer: none expected). Arguments: [RUNS] [STEADY_SECONDS] (defaults 3, 30).
 */
public final class GangRestartBench {

    private GangRestartBench() {}

    public static void main(String[] args) throws Exception {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int steadySeconds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        try (BenchCluster cluster = new BenchCluster()) {
            KubernetesClient observer = cluster.observer;
            TrainingJobReconciler reconciler = cluster.startOperator();
            try (PlayedScheduler scheduler = new PlayedScheduler(observer, "bench")) {
                for (int nodes : new int[] {128, 1024}) {
                    pool(observer, "p" + nodes, nodes + runs + 1);
                    List<Double> restarts = new ArrayList<>();
                    List<Double> peers = new ArrayList<>();
                    Map<String, Long> requests = Map.of();
                    String job = "gang-" + nodes;
                    observer.resource(job(job, "p" + nodes, nodes)).create();
                    awaitRunning(observer, job, nodes, 0);
                    for (int run = 1; run <= runs; run++) {
                        String label = "peer-" + nodes + "-" + run;
                        peers.add(cluster.plainClientCreates(job(job, "p" + nodes, nodes), label));
                        observer.pods().inNamespace("peer").withLabel(Names.JOB_LABEL, label).delete();
                        Map<String, Long> before = cluster.requests.snapshot();
                        String node = observer.pods().inNamespace("bench").withName(job + "-0").get().getSpec().getNodeName();
                        long start = System.nanoTime();
                        portDown(observer, node);
                        awaitCreated(observer, job, nodes, run);
                        restarts.add((System.nanoTime() - start) / 1e9);
                        requests = RequestCounts.difference(cluster.requests.snapshot(), before);
                        awaitRunning(observer, job, nodes, run);
                    }
                    double restart = median(restarts);
                    double peer = median(peers);
                    System.out.printf("%d-node gang: node condition True -> every new pod created, median of %d: %.2f s (runs %s);"
                            + " a plain client creating %d pods 16 at a time: %.2f s; ratio %.2f; the last restart's requests %s%n",
                            nodes, runs, restart, format(restarts), nodes, peer, restart / peer, requests);
                }
                long reconcilesBefore = reconciler.metrics().reconciles();
                Map<String, Long> before = cluster.requests.snapshot();
                Thread.sleep(steadySeconds * 1_000L);
                System.out.printf("steady, %d s, the two running gangs (1,152 pods, %d nodes): %d reconciles, requests beyond watches %s%n",
                        steadySeconds, observer.nodes().list().getItems().size(), reconciler.metrics().reconciles() - reconcilesBefore,
                        RequestCounts.difference(cluster.requests.snapshot(), before));
            }
        }
        System.exit(0);
    }

    static void pool(KubernetesClient client, String pool, int count) throws Exception {
        try (ExecutorService creators = Executors.newFixedThreadPool(16)) {
            for (int i = 0; i < count; i++) {
                String name = String.format("%s-%04d", pool, i);
                String address = "10." + (i >> 16 & 255) + "." + (i >> 8 & 255) + "." + (i & 255);
                creators.submit(() -> client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name)
                        .addToLabels(Names.RDMA_NODE_LABEL, "true").addToLabels("pool", pool).endMetadata().withNewStatus()
                        .addNewCondition().withType("Ready").withStatus("True").withReason("KubeletReady").endCondition()
                        .addNewAddress().withType("InternalIP").withAddress(address).endAddress().endStatus().build()).create());
            }
        }
    }

    /** The agent's node health reporting a port down, through the status subresource as the agent writes it (a real API server ignores status in a patch of the Node itself). */
    static void portDown(KubernetesClient client, String node) {
        client.nodes().withName(node).editStatus(n -> new NodeBuilder(n).editStatus().addToConditions(new NodeConditionBuilder()
                .withType("RdmaPortDown").withStatus("True").withReason("PortNotActive").withMessage("mlx5_0 port 1: DOWN/Polling")
                .withLastTransitionTime(java.time.Instant.now().toString()).build()).endStatus().build());
    }

    static TrainingJob job(String name, String pool, int nodes) throws Exception {
        return job(name, pool, nodes, "Recreate", 0);
    }

    /** @param strategy the job's runPolicy.restartStrategy; @param spares its spareNodes */
    static TrainingJob job(String name, String pool, int nodes, String strategy, int spares) throws Exception {
        return new ObjectMapper(new YAMLFactory()).readValue("""
                apiVersion: railyard.io/v1alpha1
                kind: TrainingJob
                metadata: {name: %s, namespace: bench}
                spec: {image: pytorch, script: train.py, nodes: %d, gpusPerNode: 8, rdma: {devicesPerNode: 8}, spareNodes: %d,
                  podTemplate: {nodeSelector: {pool: %s}}, runPolicy: {nodeFailureLimit: 100, restartStrategy: %s}}
                """.formatted(name, nodes, spares, pool, strategy), TrainingJob.class);
    }

    static List<Pod> pods(KubernetesClient client, String job) {
        return client.pods().inNamespace("bench").withLabel(Names.JOB_LABEL, job).list().getItems();
    }

    /** Until {@code nodes} of the job's pods carry the attempt, as a watch of them shows it ({@link JobPodsWatch}). */
    static void awaitCreated(KubernetesClient client, String job, int nodes, int attempt) throws InterruptedException {
        try (JobPodsWatch pods = new JobPodsWatch(client, "bench", job)) {
            pods.await(nodes, String.valueOf(attempt)::equals);
        }
    }

    static void awaitRunning(KubernetesClient client, String job, int nodes, int attempt) throws InterruptedException {
        String run = String.valueOf(attempt);
        while (pods(client, job).stream().filter(p -> run.equals(p.getMetadata().getLabels().get(Names.ATTEMPT_LABEL))
                && p.getStatus() != null && "Running".equals(p.getStatus().getPhase())).count() < nodes
                || !"Running".equals(phase(client, job))) {
            Thread.sleep(Math.max(100, nodes / 5)); // each look lists the whole gang
        }
    }

    static String phase(KubernetesClient client, String job) {
        TrainingJob current = client.resources(TrainingJob.class).inNamespace("bench").withName(job).get();
        return current.getStatus() == null ? null : current.getStatus().phase;
    }

    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    static String format(List<Double> values) {
        return values.stream().map(v -> String.format("%.2f", v)).toList().toString();
    }
}
