package io.railyard.cli;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import java.io.PrintWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code railyard status}: a TrainingJob's phase, ranks, conditions and RDMA verdict. */
@Command(name = "status", mixinStandardHelpOptions = true, description = "Show a TrainingJob's phase, ranks, conditions and RDMA verdict.")
final class StatusCommand implements Callable<Integer> {
    private static final int LAST_RESTARTS = 3;

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "NAME", description = "The TrainingJob.")
    String name;

    @Option(names = {"-n", "--namespace"}, description = "Its namespace (default: the kubeconfig's).")
    String namespace;

    @Mixin
    KubeClients kube = new KubeClients();

    /** Up to this many nodes are read one by one. */
    static final int FEW_NODES = 32;

    @Override
    public Integer call() {
        try (KubernetesClient client = kube.connect()) {
            String ns = namespace != null ? namespace : client.getNamespace() == null ? "default" : client.getNamespace();
            TrainingJob job = client.resources(TrainingJob.class).inNamespace(ns).withName(name).get();
            if (job == null) {
                throw new Railyard.UsageException("no TrainingJob " + ns + "/" + name);
            }
            PrintWriter out = spec.commandLine().getOut();
            out.println(progress(job));
            TrainingJobStatus status = job.getStatus();
            if (status != null && status.ranks != null) {
                Map<String, Node> nodes = nodes(client, status.ranks);
                for (TrainingJobStatus.Rank rank : status.ranks) {
                    out.println("  rank " + rank.rank + ": " + rank.pod + " on " + rank.node);
                    Node node = rank.node == null ? null : nodes.get(rank.node);
                    if (node != null) { // the node's agent says what is wrong with its RDMA ports
                        ClusterObserver.rdmaProblems(node).forEach(problem -> out.println("    node " + rank.node + " " + problem));
                    }
                }
            }
            if (io.railyard.operator.model.InspectorSidecar.enabled(job.getSpec())) {
                out.println("  NCCL Inspector: each pod's " + io.railyard.operator.model.InspectorSidecar.CONTAINER
                        + " sidecar serves each interval's bus bandwidth on /metrics (railyard_nccl_bus_bandwidth_gbps)");
            }
            if (status != null && status.performance != null) {
                out.println("  " + speed(status.performance));
            }
            if (status != null && status.excludedNodes != null) {
                status.excludedNodes.forEach(excluded -> out.println("  excluded node " + excluded.node + ": " + excluded.reason
                        + " since " + excluded.since));
            }
            if (status != null && status.restartHistory != null) {
                int from = Math.max(0, status.restartHistory.size() - LAST_RESTARTS);
                status.restartHistory.subList(from, status.restartHistory.size()).forEach(restart -> out.println("  restart at " + restart.time
                        + " (" + restart.cause + ", " + restart.reason + "): " + restart.message + recovery(restart)));
            }
            if (status != null && status.preflight != null && status.preflight.links != null) {
                status.preflight.links.stream().filter(link -> !"ok".equals(link.verdict)).forEach(link -> out.println("  preflight "
                        + link.from + " " + link.hca + " -> " + link.to + ": " + link.verdict + (link.reason == null ? "" : " (" + link.reason + ")")));
            }
            if (status != null && status.conditions != null) {
                for (Condition condition : status.conditions) {
                    out.println("  " + condition.getType() + "=" + condition.getStatus() + " " + condition.getReason()
                            + (condition.getMessage() == null || condition.getMessage().isEmpty() ? "" : ": " + condition.getMessage()));
                }
            }
            out.flush();
            return 0;
        }
    }

    /** The ranks' nodes: a GET each for a few, one LIST for a large job (12,500 ranks would be 12,500 requests). */
    private static Map<String, Node> nodes(KubernetesClient client, List<TrainingJobStatus.Rank> ranks) {
        Set<String> names = ranks.stream().map(rank -> rank.node).filter(Objects::nonNull).collect(Collectors.toSet());
        Map<String, Node> nodes = new HashMap<>();
        if (names.size() <= FEW_NODES) {
            names.forEach(name -> Optional.ofNullable(client.nodes().withName(name).get()).ifPresent(node -> nodes.put(name, node)));
        } else {
            client.nodes().list().getItems().stream().filter(node -> names.contains(node.getMetadata().getName()))
                    .forEach(node -> nodes.put(node.getMetadata().getName(), node));
        }
        return nodes;
    }

    /** The job's speed as the Degraded condition last found it, each slow rank on its own line. */
    static String speed(TrainingJobStatus.Performance performance) {
        StringBuilder line = new StringBuilder("speed since " + performance.since + ": " + performance.collective + " " + performance.size
                + " bus bandwidth " + performance.busBandwidthGbps + " GB/s" + (performance.expectedGbps == null ? ""
                        : " (preflight " + performance.expectedGbps + " GB/s)"));
        if (performance.slowRanks != null) {
            performance.slowRanks.forEach(rank -> line.append("\n    slow rank ").append(rank.globalRank != null ? rank.globalRank + " (GPU "
                    + rank.gpu + (rank.nic == null ? "" : ", NIC " + rank.nic) + ")" : rank.rank).append(": ").append(rank.pod).append(" on ")
                    .append(rank.node).append(" at ").append(rank.percent).append("% of the job's median"));
        }
        return line.toString();
    }

    /** "; in place: 7 pods kept, 1 replaced, running again after 9 s": how the gang came back, where the status says. */
    private static String recovery(TrainingJobStatus.Restart restart) {
        if (restart.strategy == null) {
            return "";
        }
        String how = "InPlace".equals(restart.strategy) ? "in place: " + restart.restartedInPlace + " pods kept, " + restart.replaced + " replaced"
                : "recreated: " + restart.replaced + " pods";
        return "; " + how + (restart.recoverySeconds == null ? "" : ", running again after " + restart.recoverySeconds + " s");
    }

    /** One line of progress: phase, placed and running pods, restarts, spares, RDMA. */
    static String progress(TrainingJob job) {
        TrainingJobStatus status = job.getStatus() == null ? new TrainingJobStatus() : job.getStatus();
        int nodes = job.getSpec().nodes;
        String scheduled = condition(status, "Scheduled");
        String running = condition(status, "Running");
        return job.getMetadata().getName() + ": " + (status.phase == null ? "Pending" : status.phase)
                + ", scheduled " + (scheduled == null ? "0 of " + nodes : scheduled)
                + ", running " + (running == null ? "0 of " + nodes : running)
                + ", restarts " + (status.restarts == null ? 0 : status.restarts) + restartCauses(status)
                + (status.spares == null ? "" : ", spares " + status.spares.ready + " of " + status.spares.desired + " ready")
                + (status.rdma == null ? "" : ", RDMA " + (Boolean.TRUE.equals(status.rdma.verified) ? "verified" : "NOT used: " + status.rdma.message));
    }

    /** " (1 job failure, 2 node faults)": what the restarts were for, when there were any. */
    private static String restartCauses(TrainingJobStatus status) {
        if (status.restarts == null || status.restarts == 0) {
            return "";
        }
        int job = status.jobFailures == null ? 0 : status.jobFailures;
        int node = status.nodeFailures == null ? 0 : status.nodeFailures;
        return " (" + job + " job, " + node + " node, " + (status.restarts - job - node) + " preemption)";
    }

    /** The Failed condition's reason and message. */
    static String failure(TrainingJob job) {
        return job.getStatus().conditions.stream().filter(c -> c.getType().equals("Failed")).findFirst()
                .map(c -> "failed: " + c.getReason() + ": " + c.getMessage()).orElse("failed");
    }

    /** "n of m" from a condition's message, e.g. "1 of 2 pods have a node". */
    private static String condition(TrainingJobStatus status, String type) {
        if (status.conditions == null) {
            return null;
        }
        return status.conditions.stream().filter(c -> c.getType().equals(type)).findFirst()
                .map(c -> c.getMessage() == null ? null : c.getMessage().replaceAll("^(\\d+ of \\d+).*$", "$1")).orElse(null);
    }
}
