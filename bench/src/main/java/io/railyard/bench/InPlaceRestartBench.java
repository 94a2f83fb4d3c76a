package io.railyard.bench;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.api.Names;
import io.railyard.operator.PlayedScheduler;
import io.railyard.operator.model.OperatorDefaults;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A gang's node fault, restarted in place (with 2 hot spares) and by recreating its pods, in the same run: on the fabric8
 * CRUD mock API server (no real API server can be had here) with the tests' played scheduler, one gang per strategy on
 * its own pool; rank 1's node turns RdmaPortDown True, and the time runs until every rank's pod carries the new attempt
 * (moved in place, a spare promoted, or created), with the operator's requests for it by verb. The pods' own restart
 * (the kubelet's) is not played: what is measured is the operator's part. Arguments: MOCK_URL [NODES] [RUNS] [STRATEGIES]
 * (the mock server's URL, in a process of its own: {@link MockApiServer}; defaults 1024, 3, InPlace,Recreate: at 12,500
 * nodes each strategy is minutes of gangs created, placed and run).
 */
public final class InPlaceRestartBench {

    private InPlaceRestartBench() {}

    public static void main(String[] args) throws Exception {
        int nodes = args.length > 1 ? Integer.parseInt(args[1]) : 1024;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        String[] strategies = (args.length > 3 ? args[3] : "InPlace,Recreate").split(",");
        try (BenchCluster cluster = new BenchCluster(args[0])) {
            KubernetesClient observer = cluster.observer;
            cluster.startOperator(new OperatorDefaults("railyard:bench", "rdma/rdma").withInPlaceRestart(true));
            try (PlayedScheduler scheduler = new PlayedScheduler(observer, "bench")) {
                for (String strategy : strategies) {
                    String pool = strategy.toLowerCase(java.util.Locale.ROOT);
                    int spares = strategy.equals("InPlace") ? SPARES : 0;
                    GangRestartBench.pool(observer, pool, nodes + 2 * spares + runs + 1);
                    String job = pool + "-" + nodes;
                    observer.resource(GangRestartBench.job(job, pool, nodes, strategy, spares)).create();
                    GangRestartBench.awaitRunning(observer, job, nodes, 0);
                    List<Double> seconds = new ArrayList<>();
                    List<Double> peers = new ArrayList<>();
                    Map<String, Long> requests = Map.of();
                    for (int run = 1; run <= runs; run++) {
                        String label = "peer-" + pool + "-" + run;
                        double created = cluster.plainClientCreates(GangRestartBench.job(job, pool, nodes, strategy, 0), label);
                        peers.add(strategy.equals("InPlace") ? cluster.plainClientPatches(label, nodes) : created);
                        observer.pods().inNamespace("peer").withLabel(Names.JOB_LABEL, label).delete();
                        awaitSpares(observer, job, spares);
                        Map<String, Long> before = cluster.requests.snapshot();
                        String node = rankOneNode(observer, job);
                        long start = System.nanoTime();
                        GangRestartBench.portDown(observer, node);
                        GangRestartBench.awaitCreated(observer, job, nodes, run);
                        seconds.add((System.nanoTime() - start) / 1e9);
                        requests = RequestCounts.difference(cluster.requests.snapshot(), before);
                        GangRestartBench.awaitRunning(observer, job, nodes, run);
                    }
                    double median = GangRestartBench.median(seconds);
                    double peer = GangRestartBench.median(peers);
                    System.out.printf("%s, %d-node gang: node condition True -> every rank's pod on the new attempt, median of %d: %.2f s"
                            + " (runs %s); a plain client %s as many pods 16 at a time: %.2f s, ratio %.2f; the last restart's requests %s%n",
                            strategy, nodes, runs, median, GangRestartBench.format(seconds), strategy.equals("InPlace") ? "patching" : "creating",
                            peer, median / peer, requests);
                }
            }
        }
        System.exit(0);
    }

    private static final int SPARES = 2;

    /** The node of the pod at index 1 now (a promoted spare holds it after the first run); never rank 0, which no spare replaces. */
    private static String rankOneNode(KubernetesClient client, String job) {
        return client.pods().inNamespace("bench").withLabel(Names.JOB_LABEL, job).withLabel(Names.INDEX_LABEL, "1").list().getItems().stream()
                .filter(pod -> pod.getMetadata().getDeletionTimestamp() == null).findFirst().orElseThrow().getSpec().getNodeName();
    }

    private static void awaitSpares(KubernetesClient client, String job, int spares) throws InterruptedException {
        while (client.pods().inNamespace("bench").withLabel(Names.JOB_LABEL, job).withLabel(Names.SPARE_LABEL, "true").list().getItems().stream()
                .filter(pod -> pod.getSpec().getNodeName() != null).count() < spares) {
            Thread.sleep(50);
        }
    }
}
