package io.railyard.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.operator.reconcile.TrainingJobReconciler;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The TrainingJob operator at scale on the fabric8 CRUD mock API server (no real API server can be had here): for jobs
 * of 8, 128 and 1,024 nodes, the time from creation to every pod created (the largest in three rounds, each beside a plain
 * client creating the same pods), the operator's API requests per reconcile by
 * verb, its requests over a steady minute (watches aside), its heap with RDMA nodes and other pods in the cluster (it
 * caches the nodes, and none of the pods that are not a job's); then 100 concurrent 8-node jobs.
 * Arguments: MOCK_URL [STEADY_SECONDS] [LARGEST] [NODES] [OTHER_PODS] (defaults 60, 1024, 0, 0: the mock server's URL, in a
 * process of its own so that this JVM's heap is the operator's; the largest gang, also the plain client's count; the RDMA
 * nodes and the other pods created before the operator starts).
 */
public final class OperatorScale {

    /** Turns of the largest gang and the plain client's: the ratio printed is their median. */
    private static final int ROUNDS = 3;

    private OperatorScale() {}

    public static void main(String[] args) throws Exception {
        int steadySeconds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        int largest = args.length > 2 ? Integer.parseInt(args[2]) : 1024;
        int rdmaNodes = args.length > 3 ? Integer.parseInt(args[3]) : 0;
        int otherPods = args.length > 4 ? Integer.parseInt(args[4]) : 0;
        try (BenchCluster cluster = new BenchCluster(args[0])) {
            KubernetesClient observer = cluster.observer;
            GangRestartBench.pool(observer, "scale", rdmaNodes);
            otherPods(observer, otherPods);
            TrainingJobReconciler reconciler = cluster.startOperator();
            // both sides once, unmeasured: the first large gang of each kind runs cold code, in this JVM (serializers) and
            // in the server's (its compiler recompiles for the operator's pods after the plain client's, and the other way)
            operatorCreates(observer, "warm-up", largest);
            plainClientCreates(cluster, "warm-up", largest);
            removeJob(observer, "warm-up", largest);
            for (int nodes : new int[] {8, 128}) {
                Map<String, Long> before = cluster.requests.snapshot();
                long reconcilesBefore = reconciler.metrics().reconciles();
                double seconds = operatorCreates(observer, "job-" + nodes, nodes);
                Thread.sleep(2_000);   // the reconciles the pods' creation set off
                Map<String, Long> during = RequestCounts.difference(cluster.requests.snapshot(), before);
                long reconciles = reconciler.metrics().reconciles() - reconcilesBefore;
                System.out.printf("%d-node job: all pods created in %.2f s; %d reconciles, requests %s (%.1f per reconcile)%n", nodes, seconds,
                        reconciles, during, RequestCounts.total(during) / (double) Math.max(1, reconciles));
            }
            // the largest gang and the plain client's in turns, on a server as full each time: the machine's noise falls on both
            List<Double> ratios = new ArrayList<>();
            for (int round = 1; round <= ROUNDS; round++) {
                Map<String, Long> before = cluster.requests.snapshot();
                double operator = operatorCreates(observer, "job-" + largest, largest);
                Map<String, Long> during = RequestCounts.difference(cluster.requests.snapshot(), before);
                double peer = plainClientCreates(cluster, "peer", largest);
                ratios.add(operator / peer);
                System.out.printf("%d-node job, round %d: all pods created in %.2f s, requests %s; a plain client creating the same pods"
                        + " (render's), 16 at a time: %.2f s; %.2f x%n", largest, round, operator, during, peer, operator / peer);
                if (round < ROUNDS) { // the last stays for the steady state
                    removeJob(observer, "job-" + largest, largest);
                }
            }
            System.out.printf("peer: the operator took %.2f x as long as a plain client for %d pods (median of %d rounds, each timed until a"
                    + " watch has seen every pod)%n", GangRestartBench.median(ratios), largest, ROUNDS);
            Map<String, Long> before = cluster.requests.snapshot();
            long reconcilesBefore = reconciler.metrics().reconciles();
            Thread.sleep(steadySeconds * 1_000L);
            System.out.printf("steady state, %d s, 3 jobs (%d pods): %d reconciles, requests beyond watches %s%n", steadySeconds, 136 + largest,
                    reconciler.metrics().reconciles() - reconcilesBefore, RequestCounts.difference(cluster.requests.snapshot(), before));
            System.gc();
            long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            System.out.printf("heap after GC: %d MiB (the operator and its informers' caches, the mock server in a process of its own; %d RDMA"
                    + " nodes, %d pods of the jobs and %d other pods in the cluster)%n", heap >> 20, rdmaNodes, 136 + largest, otherPods);

            long start = System.nanoTime();
            for (int i = 0; i < 100; i++) {
                observer.resource(job("many-" + i, 8)).create();
            }
            for (int i = 0; i < 100; i++) {
                awaitPods(observer, "many-" + i, 8);
            }
            System.out.printf("100 concurrent 8-node jobs: all 800 pods created in %.2f s%n", (System.nanoTime() - start) / 1e9);
        }
        System.exit(0);
    }

    /** Seconds from a job's creation until a watch has seen all its pods. */
    private static double operatorCreates(KubernetesClient observer, String name, int nodes) throws Exception {
        try (JobPodsWatch pods = new JobPodsWatch(observer, "bench", name)) {
            long start = System.nanoTime();
            observer.resource(job(name, nodes)).create();
            pods.await(nodes);
            return (System.nanoTime() - start) / 1e9;
        }
    }

    /** The same pods (render's, built beforehand) from a plain client, in namespace peer; removed once a watch has seen them all. */
    private static double plainClientCreates(BenchCluster cluster, String name, int nodes) throws Exception {
        double seconds;
        try (JobPodsWatch pods = new JobPodsWatch(cluster.observer, "peer", name)) {
            seconds = cluster.plainClientCreates(job(name, nodes), name, () -> pods.await(nodes));
            cluster.observer.pods().inNamespace("peer").withLabel(Names.JOB_LABEL, name).delete();
            pods.awaitDeleted(nodes);
        }
        return seconds;
    }

    /** Deletes a job and waits until the operator has removed its {@code nodes} pods and released it. */
    private static void removeJob(KubernetesClient observer, String name, int nodes) throws Exception {
        try (JobPodsWatch pods = new JobPodsWatch(observer, "bench", name)) {
            observer.resources(TrainingJob.class).inNamespace("bench").withName(name).delete();
            pods.awaitDeleted(nodes);
            while (observer.resources(TrainingJob.class).inNamespace("bench").withName(name).get() != null) {
                Thread.sleep(50); // its finalizer: the operator removes it after the job's other objects
            }
        }
    }

    /** Pods of no job, as a busy cluster has: the operator must cache none of them. */
    private static void otherPods(KubernetesClient client, int count) throws Exception {
        try (java.util.concurrent.ExecutorService creators = java.util.concurrent.Executors.newFixedThreadPool(16)) {
            for (int i = 0; i < count; i++) {
                String name = "web-" + i;
                creators.submit(() -> client.pods().inNamespace("other").resource(new io.fabric8.kubernetes.api.model.PodBuilder()
                        .withNewMetadata().withName(name).addToLabels("app", "web").endMetadata().withNewSpec().addNewContainer()
                        .withName("web").withImage("nginx").endContainer().endSpec().build()).create());
            }
        }
    }

    private static TrainingJob job(String name, int nodes) throws Exception {
        return new ObjectMapper(new YAMLFactory()).readValue("""
                apiVersion: railyard.io/v1alpha1
                kind: TrainingJob
                metadata: {name: %s, namespace: bench}
                spec: {image: pytorch, script: train.py, nodes: %d, gpusPerNode: 8, scheduling: {topologyKeys: [railyard.io/ib-leaf]}}
                """.formatted(name, nodes), TrainingJob.class);
    }

    private static void awaitPods(KubernetesClient observer, String job, int nodes) throws InterruptedException {
        while (observer.pods().inNamespace("bench").withLabel(Names.JOB_LABEL, job).list().getItems().size() < nodes) {
            Thread.sleep(Math.max(50, nodes / 10)); // a list of a large gang is itself work for the server
        }
    }
}
