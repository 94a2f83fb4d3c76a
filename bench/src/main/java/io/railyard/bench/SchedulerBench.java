package io.railyard.bench;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.api.Names;
import io.railyard.api.SchedulingSpec;
import io.railyard.api.TrainingJob;
import io.railyard.operator.model.OperatorDefaults;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The price of all or nothing on a real control plane with Volcano (tools/control-plane up --with volcano): a gang of
 * NODES nodes from the TrainingJob's creation until every pod is bound and Running (KWOK), placed by Volcano through
 * the operator's PodGroup, beside the same job placed by kube-scheduler pod by pod, and beside the same pods created by
 * a plain client with no operator and no gang (ROUNDS rounds each, interleaved; medians and their ratios).
 * Arguments: KUBECONFIG [NODES] [ROUNDS] (defaults 256, 3).
 */
public final class SchedulerBench {
    private SchedulerBench() {}

    public static void main(String[] args) throws Exception {
        int nodes = args.length > 1 ? Integer.parseInt(args[1]) : 256;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        try (BenchCluster cluster = BenchCluster.real(Path.of(args[0]))) {
            RealClusterBench.kwokPool(cluster.observer, nodes);
            cluster.startOperator(new OperatorDefaults("railyard:bench", "rdma/rdma"));
            gang(cluster, "warm-up", Math.min(64, nodes), SchedulingSpec.Scheduler.VOLCANO); // cold code, unmeasured
            Map<String, List<Double>> seconds = new LinkedHashMap<>();
            for (int round = 1; round <= rounds; round++) {
                for (SchedulingSpec.Scheduler scheduler : List.of(SchedulingSpec.Scheduler.VOLCANO, SchedulingSpec.Scheduler.DEFAULT)) {
                    String name = scheduler.name().toLowerCase(java.util.Locale.ROOT) + "-" + round;
                    double took = gang(cluster, name, nodes, scheduler);
                    seconds.computeIfAbsent(scheduler.name().toLowerCase(java.util.Locale.ROOT), k -> new ArrayList<>()).add(took);
                    System.out.printf("round %d: %d-node gang, scheduler %s: created to every pod Running in %.2f s%n", round, nodes,
                            scheduler.name().toLowerCase(java.util.Locale.ROOT), took);
                }
                double plain = plainPods(cluster, "plain-" + round, nodes);
                seconds.computeIfAbsent("no gang", k -> new ArrayList<>()).add(plain);
                System.out.printf("round %d: %d pods of a plain client, kube-scheduler, no operator: created to every pod Running in %.2f s%n",
                        round, nodes, plain);
            }
            double volcano = GangRestartBench.median(seconds.get("volcano"));
            double kubeScheduler = GangRestartBench.median(seconds.get("default"));
            double plain = GangRestartBench.median(seconds.get("no gang"));
            System.out.printf("median of %d rounds, %d nodes: volcano %.2f s %s, kube-scheduler %.2f s %s, no gang %.2f s %s;"
                    + " volcano / kube-scheduler %.2f x, volcano / no gang %.2f x%n", rounds, nodes,
                    volcano, GangRestartBench.format(seconds.get("volcano")), kubeScheduler, GangRestartBench.format(seconds.get("default")),
                    plain, GangRestartBench.format(seconds.get("no gang")), volcano / kubeScheduler, volcano / plain);
        }
        System.exit(0);
    }

    /** The job's creation until every one of its pods is Running and the job says so; then it is removed. */
    private static double gang(BenchCluster cluster, String name, int nodes, SchedulingSpec.Scheduler scheduler) throws Exception {
        TrainingJob job = GangRestartBench.job(name, RealClusterBench.POOL, nodes);
        job.getSpec().scheduling = new SchedulingSpec();
        job.getSpec().scheduling.scheduler = scheduler;
        long start = System.nanoTime();
        cluster.observer.resource(job).create();
        GangRestartBench.awaitRunning(cluster.observer, name, nodes, 0);
        double took = (System.nanoTime() - start) / 1e9;
        RealClusterBench.remove(cluster, name, "none");
        return took;
    }

    /** The same pods created by a plain client 16 at a time, placed by kube-scheduler, until every one is Running. */
    private static double plainPods(BenchCluster cluster, String label, int nodes) throws Exception {
        KubernetesClient observer = cluster.observer;
        List<Pod> pods = cluster.peerPods(GangRestartBench.job(label, RealClusterBench.POOL, nodes), label);
        long start = System.nanoTime();
        cluster.createAll(pods);
        while (observer.pods().inNamespace("peer").withLabel(Names.JOB_LABEL, label).list().getItems().stream()
                .filter(pod -> pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase())).count() < nodes) {
            Thread.sleep(Math.max(100, nodes / 5));
        }
        double took = (System.nanoTime() - start) / 1e9;
        RealClusterBench.remove(cluster, "none", label);
        return took;
    }
}
