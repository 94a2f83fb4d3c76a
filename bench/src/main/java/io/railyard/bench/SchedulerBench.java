package io.railyard.bench;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.api.Names;
import io.railyard.api.SchedulingSpec;
import io.railyard.api.TrainingJob;
import io.railyard.operator.model.OperatorDefaults;
import io.railyard.operator.model.WorkloadGangModel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The price of all or nothing on a real control plane with Volcano and Kueue (tools/control-plane up --with volcano
 * --with kueue): a gang of NODES nodes from the TrainingJob's creation until every pod is bound and Running (KWOK),
 * placed by Volcano through the operator's PodGroup, admitted by Kueue as a pod group (a ClusterQueue whose flavor has
 * a hosts' topology, so that Kueue admits it only where every pod fits) and then bound by kube-scheduler, beside the
 * same job as Kubernetes' own gang (scheduling.k8s.io/v1beta1 Workload and PodGroup, kube-scheduler's GangScheduling),
 * the same job placed by kube-scheduler pod by pod, and beside the same pods created by a plain client with no operator and
 * no gang (ROUNDS rounds each, interleaved; medians and their ratios). A scheduler the cluster does not run is left out.
 * Arguments: KUBECONFIG [NODES] [ROUNDS] (defaults 256, 3).
 */
public final class SchedulerBench {
    private static final String KUEUE = "kueue.x-k8s.io/v1beta2";

    private SchedulerBench() {}

    public static void main(String[] args) throws Exception {
        int nodes = args.length > 1 ? Integer.parseInt(args[1]) : 256;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        try (BenchCluster cluster = BenchCluster.real(Path.of(args[0]))) {
            RealClusterBench.kwokPool(cluster.observer, nodes);
            boolean workloadGangs = cluster.observer.supports(WorkloadGangModel.API_VERSION, "PodGroup");
            cluster.startOperator(new OperatorDefaults("railyard:bench", "rdma/rdma").withWorkloadGangs(workloadGangs));
            List<SchedulingSpec.Scheduler> schedulers = new ArrayList<>();
            if (cluster.observer.supports("scheduling.volcano.sh/v1beta1", "PodGroup")) {
                schedulers.add(SchedulingSpec.Scheduler.VOLCANO);
            }
            if (cluster.observer.supports(KUEUE, "ClusterQueue")) {
                kueueQueue(cluster.observer, nodes);
                schedulers.add(SchedulingSpec.Scheduler.KUEUE);
            }
            if (workloadGangs) {
                schedulers.add(SchedulingSpec.Scheduler.KUBERNETES);
            }
            schedulers.add(SchedulingSpec.Scheduler.DEFAULT);
            for (SchedulingSpec.Scheduler scheduler : schedulers) {
                gang(cluster, "warm-up-" + name(scheduler), Math.min(64, nodes), scheduler); // cold code, unmeasured
            }
            Map<String, List<Double>> seconds = new LinkedHashMap<>();
            for (int round = 1; round <= rounds; round++) {
                for (SchedulingSpec.Scheduler scheduler : schedulers) {
                    double took = gang(cluster, name(scheduler) + "-" + round, nodes, scheduler);
                    seconds.computeIfAbsent(name(scheduler), k -> new ArrayList<>()).add(took);
                    System.out.printf("round %d: %d-node gang, scheduler %s: created to every pod Running in %.2f s%n", round, nodes,
                            name(scheduler), took);
                }
                double plain = plainPods(cluster, "plain-" + round, nodes);
                seconds.computeIfAbsent("no gang", k -> new ArrayList<>()).add(plain);
                System.out.printf("round %d: %d pods of a plain client, kube-scheduler, no operator: created to every pod Running in %.2f s%n",
                        round, nodes, plain);
            }
            double kubeScheduler = GangRestartBench.median(seconds.get("default"));
            double plain = GangRestartBench.median(seconds.get("no gang"));
            StringBuilder line = new StringBuilder("median of %d rounds, %d nodes:".formatted(rounds, nodes));
            seconds.forEach((scheduler, each) -> line.append(" %s %.2f s %s;".formatted(scheduler.equals("default") ? "kube-scheduler" : scheduler,
                    GangRestartBench.median(each), GangRestartBench.format(each))));
            for (SchedulingSpec.Scheduler scheduler : schedulers.subList(0, schedulers.size() - 1)) {
                double gang = GangRestartBench.median(seconds.get(name(scheduler)));
                line.append(" %s / kube-scheduler %.2f x, %s / no gang %.2f x;".formatted(name(scheduler), gang / kubeScheduler,
                        name(scheduler), gang / plain));
            }
            System.out.println(line.substring(0, line.length() - 1));
        }
        System.exit(0);
    }

    private static String name(SchedulingSpec.Scheduler scheduler) {
        return scheduler.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Kueue's queue of the pool: a hosts' topology, a flavor of the pool's nodes with it, a ClusterQueue of their GPUs and ports. */
    private static void kueueQueue(KubernetesClient client, int nodes) {
        client.resource(kueue("Topology", "bench-hosts", null, Map.of("levels", List.of(Map.of("nodeLabel", "kubernetes.io/hostname"))))).serverSideApply();
        client.resource(kueue("ResourceFlavor", "bench", null, Map.of("nodeLabels", Map.of("pool", RealClusterBench.POOL), "topologyName", "bench-hosts")))
                .serverSideApply();
        String quota = String.valueOf(8 * nodes);
        client.resource(kueue("ClusterQueue", "bench", null, Map.of("namespaceSelector", Map.of(),
                "resourceGroups", List.of(Map.of("coveredResources", List.of("nvidia.com/gpu", "rdma/rdma", "cpu", "memory"),
                        "flavors", List.of(Map.of("name", "bench", "resources", List.of(Map.of("name", "nvidia.com/gpu", "nominalQuota", quota),
                                Map.of("name", "rdma/rdma", "nominalQuota", quota), Map.of("name", "cpu", "nominalQuota", String.valueOf(192 * nodes)),
                                Map.of("name", "memory", "nominalQuota", 2 * nodes + "Ti"))))))))).serverSideApply();
        client.resource(kueue("LocalQueue", "bench", "bench", Map.of("clusterQueue", "bench"))).serverSideApply();
    }

    private static GenericKubernetesResource kueue(String kind, String name, String namespace, Map<String, Object> spec) {
        return new GenericKubernetesResourceBuilder().withApiVersion(KUEUE).withKind(kind).withNewMetadata().withName(name)
                .withNamespace(namespace).endMetadata().addToAdditionalProperties("spec", spec).build();
    }

    /** The job's creation until every one of its pods is Running and the job says so; then it is removed. */
    private static double gang(BenchCluster cluster, String name, int nodes, SchedulingSpec.Scheduler scheduler) throws Exception {
        TrainingJob job = GangRestartBench.job(name, RealClusterBench.POOL, nodes);
        job.getSpec().scheduling = new SchedulingSpec();
        job.getSpec().scheduling.scheduler = scheduler;
        job.getSpec().scheduling.queue = scheduler == SchedulingSpec.Scheduler.KUEUE ? "bench" : null;
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
