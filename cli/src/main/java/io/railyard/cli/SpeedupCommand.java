package io.railyard.cli;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.cli.pictures.SpeedupPage;
import io.railyard.cli.speedup.CollectiveJobs;
import io.railyard.cli.speedup.CollectiveRun;
import io.railyard.cli.speedup.SpeedupOutput;
import io.railyard.cli.speedup.SpeedupPair;
import io.railyard.cli.speedup.SpeedupReport;
import io.railyard.operator.model.OperatorDefaults;
import io.railyard.operator.preflight.Pairing;
import io.railyard.operator.preflight.PodLogs;
import io.railyard.operator.preflight.PodPairSweep;
import io.railyard.operator.preflight.PodTrouble;
import io.railyard.operator.preflight.PreflightPods;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code railyard speedup}: RDMA against TCP between the same nodes, measured side by side, and the claims judged. */
@Command(
        name = "speedup",
        mixinStandardHelpOptions = true,
        description = "Measure RDMA (ib_write_bw, ib_write_lat) against TCP (iperf3, a round trip) between node pairs, as pods, and say"
                + " which of RDMA's claims hold on these nodes; with --collectives, an all-reduce benchmark as TrainingJobs with"
                + " GPUDirect, without it, and over sockets.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:measured, and every claim checked holds", "1:a claim fails, or nothing could be compared", "2:usage error"})
final class SpeedupCommand implements Callable<Integer> {
    enum Output { text, json, html }

    static final String GPU_RESOURCE = "nvidia.com/gpu";

    @Spec
    CommandSpec spec;

    @Option(names = {"-l", "--selector"}, paramLabel = "LABELS", description = "The nodes, by label selector (key=value,...).")
    String selector;

    @Option(names = "--node", paramLabel = "NAME", arity = "1..*", description = "The nodes, by name.")
    List<String> nodeNames;

    @Option(names = {"-n", "--namespace"}, defaultValue = "default", description = "Where the pods and jobs run (default: ${DEFAULT-VALUE}).")
    String namespace;

    @Option(names = "--image", defaultValue = "${env:RAILYARD_IMAGE:-" + OperatorDefaults.RAILYARD_IMAGE + "}",
            description = "Image with railyard, perftest and iperf3 (default: RAILYARD_IMAGE, else ${DEFAULT-VALUE}).")
    String image;

    @Option(names = "--resource", defaultValue = InstallationOptions.RDMA_RESOURCE,
            description = "The RDMA extended resource (default: RAILYARD_RDMA_RESOURCE, else ${DEFAULT-VALUE}).")
    String resource;

    @Option(names = "--devices-per-node", description = "HCAs measured per node, and iperf3's streams (default: as many as every RDMA node offers).")
    Integer devicesPerNode;

    @Option(names = "--pairs", defaultValue = "ring", description = "ring: each node with the next; all: every pair (default: ${DEFAULT-VALUE}).")
    String pairs;

    @Option(names = "--duration", defaultValue = "10", description = "Seconds each bandwidth test measures (default: ${DEFAULT-VALUE}).")
    int durationSeconds;

    @Option(names = "--timeout", defaultValue = "600", description = "Seconds a round of pods may take, starting included (default: ${DEFAULT-VALUE}).")
    int timeoutSeconds;

    @Option(names = "--host-network", description = "Run the pods (and the jobs) in the nodes' network namespace.")
    boolean hostNetwork;

    @Option(names = "--socket-interface", paramLabel = "IFNAME", description = "NCCL_SOCKET_IFNAME: the interface TCP is measured over, as NCCL"
            + " would bootstrap on it (default: the route to the peer).")
    String socketInterface;

    @Option(names = "--collectives", paramLabel = "IMAGE", description = "Also run Railyard's all-reduce benchmark as TrainingJobs from this"
            + " image (PyTorch with NCCL): with GPUDirect, with NCCL_NET_GDR_LEVEL=LOC, with NCCL_IB_DISABLE=1. Needs --selector and the operator.")
    String collectivesImage;

    @Option(names = "--gpus-per-node", description = "GPUs per node for --collectives (default: as many as every node offers).")
    Integer gpusPerNode;

    @Option(names = "--collectives-timeout", defaultValue = "1800", description = "Seconds each benchmark job may take (default: ${DEFAULT-VALUE}).")
    int collectivesTimeoutSeconds;

    @Option(names = "--keep", description = "Keep the pods, the jobs and the script's ConfigMap instead of deleting them.")
    boolean keep;

    @Option(names = {"-o", "--output"}, defaultValue = "text", description = "Output format: ${COMPLETION-CANDIDATES}.")
    Output output;

    @Option(names = "--create-rate", paramLabel = "PODS_PER_SECOND", defaultValue = "50", description = "Pods created per second at most (default: ${DEFAULT-VALUE}).")
    double createRate;

    @Option(names = "--poll-ms", defaultValue = "1000", hidden = true)
    long pollMillis;

    @Mixin
    KubeClients kube = new KubeClients();

    private final PodLogs logs;

    SpeedupCommand() {
        this(null);
    }

    /** Each pair's token, which its two pods share: the round trip's server serves no other client. */
    private final Map<Pairing.Pair, String> pairTokens = new java.util.concurrent.ConcurrentHashMap<>();

    /** @param logs where the pods' logs come from (null: the API's pods/log) */
    SpeedupCommand(PodLogs logs) {
        this.logs = logs;
    }

    @Override
    public Integer call() throws Exception {
        Pairing.Mode mode = checkedOptions();
        PrintWriter err = spec.commandLine().getErr();
        try (KubernetesClient client = kube.connect()) {
            List<Node> nodes = SelectedNodes.of(client, selector, nodeNames);
            if (nodes.size() < 2) {
                throw new Railyard.UsageException("1 node selected: a speed-up is measured between two nodes at least");
            }
            if (mode == Pairing.Mode.ALL && nodes.size() > PreflightCommand.MAX_ALL_PAIRS_NODES) {
                throw new Railyard.UsageException("--pairs all over " + nodes.size() + " nodes is too many pairs: use --pairs ring, or at most "
                        + PreflightCommand.MAX_ALL_PAIRS_NODES + " nodes");
            }
            Set<String> withRdma = new HashSet<>();
            int devices = devicesPerNode == null ? Integer.MAX_VALUE : devicesPerNode;
            List<String> names = new ArrayList<>();
            for (Node node : nodes) {
                String name = node.getMetadata().getName();
                names.add(name);
                long offered = SelectedNodes.offered(node, resource);
                if (offered > 0) {
                    withRdma.add(name);
                    devices = devicesPerNode == null ? (int) Math.min(devices, offered) : devices;
                }
            }
            int hcas = withRdma.isEmpty() ? 0 : devices;
            String run = DateTimeFormatter.ofPattern("MMddHHmmss").withZone(ZoneOffset.UTC).format(Instant.now())
                    + String.format("%04x", ThreadLocalRandom.current().nextInt(0x10000));
            PodLogs podLogs = logs != null ? logs : PodLogs.through(client, PreflightPods.CONTAINER);
            List<List<Pairing.Pair>> rounds = Pairing.rounds(names, mode);
            progress(err, "speedup " + run + ": " + names.size() + " nodes (" + withRdma.size() + " with " + resource + "), "
                    + rounds.stream().mapToInt(List::size).sum() + " pairs in " + rounds.size() + " rounds, " + hcas + " HCA(s) each");
            PodPairSweep.Plan plan = new PodPairSweep.Plan(namespace, CollectiveJobs.SPEEDUP_LABEL, run, "speedup", timeoutSeconds, keep,
                    Duration.ofMillis(pollMillis), createRate, !hostNetwork);
            PodPairSweep sweep = new PodPairSweep(client, plan, (name, role, pair, serverAddress) -> pod(run, name, role, pair, serverAddress,
                    withRdma.contains(pair.client()) && withRdma.contains(pair.server()) ? hcas : 0), line -> progress(err, "speedup " + run + ": " + line));
            List<SpeedupPair> measured = sweep.run(rounds, (pair, server, clientPod) -> List.of(judge(pair, server, clientPod, podLogs)),
                    SpeedupPair::bothMeasured, "pairs measured over RDMA and TCP");
            List<CollectiveRun> collectives = collectivesImage == null ? List.of()
                    : CollectiveJobs.run(client, podLogs, shape(run, nodes, hcas), keep, Duration.ofMillis(pollMillis), line -> progress(err, line));
            SpeedupReport report = new SpeedupReport(measured, collectives, names.size());
            PrintWriter out = spec.commandLine().getOut();
            out.print(switch (output) {
                case text -> report.text();
                case json -> Json.write(report.json());
                case html -> SpeedupPage.html(report, Json.write(report.json()));
            });
            out.flush();
            return report.passed() ? 0 : 1;
        }
    }

    private Pod pod(String run, String name, String role, Pairing.Pair pair, String serverAddress, int devices) {
        boolean server = role.equals(PreflightPods.SERVER);
        List<String> args = new ArrayList<>(List.of("speedup-link", "--role=" + role, "--pair-token=" + pairTokens.computeIfAbsent(pair,
                p -> randomToken())));
        if (!server) {
            args.add("--peer=" + serverAddress);
        }
        args.addAll(List.of("--duration=" + durationSeconds, "--timeout=" + timeoutSeconds, "--rdma=" + (devices > 0)));
        if (socketInterface != null) {
            args.add("--socket-ifname=" + socketInterface);
        }
        PreflightPods.Settings settings = new PreflightPods.Settings(image, resource, devices, hostNetwork, timeoutSeconds, durationSeconds);
        return PreflightPods.pod(namespace, CollectiveJobs.SPEEDUP_LABEL, run, name, role, server ? pair.server() : pair.client(),
                server ? pair.client() : pair.server(), args, settings);
    }

    private static String randomToken() {
        byte[] token = new byte[16];
        new java.security.SecureRandom().nextBytes(token);
        return java.util.HexFormat.of().formatHex(token);
    }

    /** One pair's figures from its two pods' logs, or why its pods gave none. */
    private SpeedupPair judge(Pairing.Pair pair, Pod server, Pod clientPod, PodLogs podLogs) {
        if (server == null || clientPod == null) {
            String why = server == null ? "was not created" : PodTrouble.of(server).orElse(PodTrouble.finished(server)
                    ? "exited before its client started" : "did not start within " + timeoutSeconds + " s (still " + PodPairSweep.phase(server) + ")");
            return SpeedupPair.failed(pair.client(), pair.server(), "server pod on " + pair.server() + " " + why);
        }
        Optional<String> trouble = PodTrouble.of(clientPod);
        if (trouble.isPresent() && !PodTrouble.finished(clientPod)) {
            return SpeedupPair.failed(pair.client(), pair.server(), "client pod on " + pair.client() + " " + trouble.get());
        }
        if (!PodTrouble.finished(clientPod)) {
            return SpeedupPair.failed(pair.client(), pair.server(), "no result within " + timeoutSeconds + " s (the client pod is still "
                    + PodPairSweep.phase(clientPod) + ")");
        }
        SpeedupOutput sent = SpeedupOutput.parse(podLogs.read(namespace, clientPod.getMetadata().getName()).orElse(""));
        SpeedupOutput received = SpeedupOutput.parse(podLogs.read(namespace, server.getMetadata().getName()).orElse(""));
        return SpeedupPair.of(pair.client(), pair.server(), sent, received);
    }

    private CollectiveJobs.Shape shape(String run, List<Node> nodes, int hcas) {
        int gpus = gpusPerNode != null ? gpusPerNode : (int) nodes.stream().mapToLong(n -> SelectedNodes.offered(n, GPU_RESOURCE)).min().orElse(0);
        if (gpus < 1 || hcas < 1) {
            throw new Railyard.UsageException("--collectives needs every node to offer " + GPU_RESOURCE + " and " + resource + " (found "
                    + gpus + " GPUs and " + hcas + " HCAs on the poorest node); give --gpus-per-node if the nodes do not say");
        }
        return new CollectiveJobs.Shape(namespace, run, collectivesImage, nodes.size(), gpus, resource, hcas, hostNetwork, socketInterface,
                selector == null ? null : SelectedNodes.labels(selector), nodeNames, collectivesTimeoutSeconds);
    }

    private void progress(PrintWriter err, String line) {
        if (output == Output.text) {
            err.println(line);
            err.flush();
        }
    }

    private Pairing.Mode checkedOptions() {
        if ((selector == null) == (nodeNames == null)) {
            throw new Railyard.UsageException("give the nodes to measure: --selector LABELS or --node NAME..., one of them");
        }
        if (durationSeconds < 1 || timeoutSeconds < 10 || 3 * durationSeconds >= timeoutSeconds) {
            throw new Railyard.UsageException("--timeout " + timeoutSeconds + " and --duration " + durationSeconds
                    + ": the timeout must be at least 10 s and three times the duration (two bandwidth tests and the rest)");
        }
        if (devicesPerNode != null && devicesPerNode < 1) {
            throw new Railyard.UsageException("--devices-per-node " + devicesPerNode + " must be at least 1");
        }
        if (!(createRate > 0)) {
            throw new Railyard.UsageException("--create-rate " + createRate + " must be above 0 pods per second");
        }
        return switch (pairs) {
            case "ring" -> Pairing.Mode.RING;
            case "all" -> Pairing.Mode.ALL;
            default -> throw new Railyard.UsageException("--pairs " + pairs + " is not ring or all");
        };
    }
}
