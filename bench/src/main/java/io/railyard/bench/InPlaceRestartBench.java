package io.railyard.bench;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.operator.PlayedScheduler;
import io.railyard.operator.model.OperatorDefaults;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A gang's node fault, restarted in place and by recreating its pods, in the same run: on the fabric8 CRUD mock API
 * server (no real API server can be had here) with the tests' played scheduler, one gang per strategy on its own pool;
 * a member's node turns RdmaPortDown True, and the time runs until every rank's pod carries the new attempt (moved in
 * place, or created), with the operator's requests for it by verb. The pods' own restart (the kubelet's) is not played:
 * what is measured is the operator's part. Arguments: [NODES] [RUNS] (defaults 1024, 3).
 */
public final class InPlaceRestartBench {

    private InPlaceRestartBench() {}

    public static void main(String[] args) throws Exception {
        int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 1024;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        try (MockCluster cluster = new MockCluster()) {
            KubernetesClient observer = cluster.observer;
            cluster.startOperator(new OperatorDefaults("railyard:bench", "rdma/rdma").withInPlaceRestart(true));
            try (PlayedScheduler scheduler = new PlayedScheduler(observer, "bench")) {
                for (String strategy : new String[] {"InPlace", "Recreate"}) {
                    String pool = strategy.toLowerCase(java.util.Locale.ROOT);
                    GangRestartBench.pool(observer, pool, nodes + runs + 1);
                    String job = pool + "-" + nodes;
                    observer.resource(GangRestartBench.job(job, pool, nodes, strategy)).create();
                    GangRestartBench.awaitRunning(observer, job, nodes, 0);
                    List<Double> seconds = new ArrayList<>();
                    List<Double> peers = new ArrayList<>();
                    Map<String, Long> requests = Map.of();
                    for (int run = 1; run <= runs; run++) {
                        String label = "peer-" + pool + "-" + run;
                        double created = cluster.plainClientCreates(GangRestartBench.job(job, pool, nodes, strategy), label);
                        peers.add(strategy.equals("InPlace") ? cluster.plainClientPatches(label, nodes) : created);
                        observer.pods().inNamespace("peer").withLabel(io.railyard.api.Names.JOB_LABEL, label).delete();
                        Map<String, Long> before = cluster.requests.snapshot();
                        String node = observer.pods().inNamespace("bench").withName(job + "-0").get().getSpec().getNodeName();
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
}
