package io.railyard.bench;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.operator.model.OperatorDefaults;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The operator on a real control plane (tools/control-plane: kube-apiserver, etcd, kube-scheduler, the controller
 * manager, KWOK's nodes): a gang of LARGEST nodes created, from the job to a watch that has seen every pod, beside a
 * plain fabric8 client creating the same pods 16 at a time (ROUNDS rounds, the median of their ratios), with the
 * operator's requests; then a node fault's recovery for each strategy, from the node's RdmaPortDown turning True to
 * every rank carrying the new attempt, beside the plain client creating (Recreate) or patching (InPlace) as many pods.
 * The gangs are placed by kube-scheduler and run by KWOK; the kubelet's in-place restart itself is not simulated.
 * Arguments: KUBECONFIG [LARGEST] [ROUNDS] [STRATEGIES] (defaults 1024, 3, Recreate,InPlace).
 */
public final class RealClusterBench {
    static final String POOL = "gang";

    private RealClusterBench() {}

    public static void main(String[] args) throws Exception {
        int largest = args.length > 1 ? Integer.parseInt(args[1]) : 1024;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        String[] strategies = (args.length > 3 ? args[3] : "Recreate,InPlace").split(",");
        try (BenchCluster cluster = BenchCluster.real(Path.of(args[0]))) {
            KubernetesClient observer = cluster.observer;
            kwokPool(observer, largest + 4);
            cluster.startOperator(new OperatorDefaults("railyard:bench", "rdma/rdma").withInPlaceRestart(true));
            created(cluster, "warm-up", Math.min(128, largest)); // cold code on both sides, unmeasured

            List<Double> ratios = new ArrayList<>();
            for (int round = 1; round <= rounds; round++) {
                Map<String, Long> before = cluster.requests.snapshot();
                double operator = operatorCreates(observer, "create-" + round, largest, "Recreate");
                Map<String, Long> requests = RequestCounts.difference(cluster.requests.snapshot(), before);
                double peer = cluster.plainClientCreates(GangRestartBench.job("create-" + round, POOL, largest), "peer-" + round);
                ratios.add(operator / peer);
                System.out.printf("%d-node gang, round %d: the operator created every pod in %.2f s, requests %s; a plain client creating"
                        + " the same pods 16 at a time: %.2f s; %.2f x%n", largest, round, operator, requests, peer, operator / peer);
                remove(cluster, "create-" + round, "peer-" + round);
            }
            System.out.printf("creation: the operator took %.2f x a plain client's time for %d pods (median of %d rounds %s)%n",
                    GangRestartBench.median(ratios), largest, rounds, GangRestartBench.format(ratios));

            for (String strategy : strategies) {
                String job = strategy.toLowerCase(java.util.Locale.ROOT);
                operatorCreates(observer, job, largest, strategy);
                GangRestartBench.awaitRunning(observer, job, largest, 0);
                String node = observer.pods().inNamespace("bench").withName(job + "-1").get().getSpec().getNodeName();
                Map<String, Long> before = cluster.requests.snapshot();
                long start;
                double seconds;
                double oldGone;
                try (JobPodsWatch gang = new JobPodsWatch(observer, "bench", job)) { // when the last pod of the old run was gone
                    start = System.nanoTime();
                    GangRestartBench.portDown(observer, node);
                    GangRestartBench.awaitCreated(observer, job, largest, 1);
                    seconds = (System.nanoTime() - start) / 1e9;
                    oldGone = gang.lastDeletion() == 0 ? 0 : (gang.lastDeletion() - start) / 1e9;
                }
                Map<String, Long> requests = RequestCounts.difference(cluster.requests.snapshot(), before);
                double peer;
                String peerWork;
                if (strategy.equals("InPlace")) {
                    cluster.plainClientCreates(GangRestartBench.job(job, POOL, largest), "peer-" + job);
                    peer = cluster.plainClientPatches("peer-" + job, largest);
                    peerWork = "patching";
                } else {
                    peer = cluster.plainClientRecreates(GangRestartBench.job(job, POOL, largest), "peer-" + job, poolNodes(largest));
                    peerWork = "deleting, waiting out and creating again";
                }
                System.out.printf("%s, %d-node gang: node condition True -> every rank at the new attempt in %.2f s (the last pod"
                        + " deleted at %.2f s), requests %s; a plain client %s %d pods 16 at a time: %.2f s; %.2f x%n", strategy, largest,
                        seconds, oldGone, requests, peerWork, largest, peer, seconds / peer);
                remove(cluster, job, "peer-" + job);
                portUp(observer, node);
            }
        }
        System.exit(0);
    }

    /** A job's creation until a watch has seen all its pods; the pods then placed by kube-scheduler and run by KWOK. */
    private static double operatorCreates(KubernetesClient observer, String name, int nodes, String strategy) throws Exception {
        try (JobPodsWatch pods = new JobPodsWatch(observer, "bench", name)) {
            long start = System.nanoTime();
            observer.resource(GangRestartBench.job(name, POOL, nodes, strategy, 0)).create();
            pods.await(nodes);
            return (System.nanoTime() - start) / 1e9;
        }
    }

    private static void created(BenchCluster cluster, String name, int nodes) throws Exception {
        operatorCreates(cluster.observer, name, nodes, "Recreate");
        cluster.plainClientCreates(GangRestartBench.job(name, POOL, nodes), "peer-" + name);
        remove(cluster, name, "peer-" + name);
    }

    /** Deletes a job and the plain client's pods, and waits until both are gone (the job's finalizer released). */
    static void remove(BenchCluster cluster, String job, String peer) throws Exception {
        KubernetesClient observer = cluster.observer;
        observer.resources(TrainingJob.class).inNamespace("bench").withName(job).delete();
        observer.pods().inNamespace("peer").withLabel(Names.JOB_LABEL, peer).delete();
        while (observer.resources(TrainingJob.class).inNamespace("bench").withName(job).get() != null
                || !observer.pods().inNamespace("bench").withLabel(Names.JOB_LABEL, job).list().getItems().isEmpty()
                || !observer.pods().inNamespace("peer").withLabel(Names.JOB_LABEL, peer).list().getItems().isEmpty()) {
            Thread.sleep(500);
        }
    }

    private static List<String> poolNodes(int count) {
        return java.util.stream.IntStream.range(0, count).mapToObj(RealClusterBench::poolNode).toList();
    }

    private static String poolNode(int index) {
        return String.format("%s-%05d", POOL, index);
    }

    /** Nodes KWOK keeps Ready, shaped as the agent labels an 8-GPU RDMA node. */
    static void kwokPool(KubernetesClient client, int count) throws Exception {
        try (ExecutorService creators = Executors.newFixedThreadPool(16)) {
            for (int i = 0; i < count; i++) {
                String name = poolNode(i);
                creators.submit(() -> {
                    var node = new NodeBuilder().withNewMetadata().withName(name).addToAnnotations("kwok.x-k8s.io/node", "fake")
                            .addToLabels(Names.RDMA_NODE_LABEL, "true").addToLabels("pool", POOL).addToLabels("kubernetes.io/hostname", name)
                            .endMetadata().withNewStatus().addToCapacity(Map.of("cpu", new Quantity("192"), "memory", new Quantity("2Ti"),
                                    "pods", new Quantity("110"), "nvidia.com/gpu", new Quantity("8"), "rdma/rdma", new Quantity("8")))
                            .endStatus().build();
                    node.getStatus().setAllocatable(node.getStatus().getCapacity());
                    node.getStatus().setDeclaredFeatures(List.of("RestartAllContainersOnContainerExits"));
                    return client.nodes().resource(node).create();
                });
            }
        }
    }

    /** The agent's condition back to False: the port is up again. */
    private static void portUp(KubernetesClient client, String node) {
        client.nodes().withName(node).editStatus(n -> {
            for (NodeCondition condition : n.getStatus().getConditions()) {
                if (condition.getType().equals("RdmaPortDown")) {
                    condition.setStatus("False");
                    condition.setReason("AllPortsActive");
                }
            }
            return n;
        });
    }
}
