package io.railyard.cli;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.api.Names;
import io.railyard.cli.pictures.PreflightHeatmap;
import io.railyard.operator.model.OperatorDefaults;
import io.railyard.operator.preflight.Link;
import io.railyard.operator.preflight.Pairing;
import io.railyard.operator.preflight.PodLogs;
import io.railyard.operator.preflight.PreflightNodeMarks;
import io.railyard.operator.preflight.PreflightPods;
import io.railyard.operator.preflight.PreflightReport;
import io.railyard.operator.preflight.PreflightSweep;
import io.railyard.operator.preflight.PreflightVerdict;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code railyard preflight}: ib_write_bw between nodes, as pods, and a verdict on every link and node. */
@Command(
        name = "preflight",
        mixinStandardHelpOptions = true,
        description = "Measure the RDMA links between nodes with ib_write_bw, run as pods: a server and a client pod per pair, in rounds of disjoint pairs.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every link reached --min-percent of its line rate", "1:a link is slow or failed", "2:usage error"})
final class PreflightCommand implements Callable<Integer> {
    enum Output { text, json, html }

    @Spec
    CommandSpec spec;

    @Option(names = {"-l", "--selector"}, paramLabel = "LABELS", description = "The nodes to test, by label selector (key=value,...).")
    String selector;

    @Option(names = "--node", paramLabel = "NAME", arity = "1..*", description = "The nodes to test, by name.")
    List<String> nodeNames;

    @Option(names = {"-n", "--namespace"}, defaultValue = "default", description = "Where the pods run (default: ${DEFAULT-VALUE}).")
    String namespace;

    @Option(names = "--image", defaultValue = "${env:RAILYARD_IMAGE:-" + OperatorDefaults.RAILYARD_IMAGE + "}",
            description = "Image with railyard and ib_write_bw (default: RAILYARD_IMAGE, else ${DEFAULT-VALUE}).")
    String image;

    @Option(names = "--resource", defaultValue = InstallationOptions.RDMA_RESOURCE,
            description = "The RDMA extended resource (default: RAILYARD_RDMA_RESOURCE, else ${DEFAULT-VALUE}).")
    String resource;

    @Option(names = "--devices-per-node", description = "HCAs tested per node (default: as many as every node offers).")
    Integer devicesPerNode;

    @Option(names = "--pairs", defaultValue = "ring", description = "ring: each node with the next, in two rounds; all: every pair (default: ${DEFAULT-VALUE}).")
    String pairs;

    @Option(names = "--min-percent", defaultValue = "80", description = "A link below this share of its line rate is slow (default: ${DEFAULT-VALUE}).")
    int minPercent;

    @Option(names = "--line-rate-gbps", description = "The line rate where neither the agent's labels nor the pods' sysfs give it.")
    Double lineRateGbps;

    @Option(names = "--timeout", defaultValue = "600", description = "Seconds a round may take, pods starting included (default: ${DEFAULT-VALUE}).")
    int timeoutSeconds;

    @Option(names = "--duration", defaultValue = "5", description = "Seconds each ib_write_bw measures (default: ${DEFAULT-VALUE}).")
    int durationSeconds;

    @Option(names = "--host-network", description = "Run the pods in the nodes' network namespace.")
    boolean hostNetwork;

    @Option(names = "--label", description = "Label each node railyard.io/preflight=passed|failed, with the time and its worst figure in an annotation.")
    boolean label;

    @Option(names = "--taint", description = "Taint failed and suspect nodes railyard.io/preflight-failed:NoSchedule.")
    boolean taint;

    @Option(names = "--keep", description = "Keep the pods (to read them with kubectl) instead of deleting each round's.")
    boolean keep;

    @Option(names = {"-o", "--output"}, defaultValue = "text", description = "Output format: ${COMPLETION-CANDIDATES}.")
    Output output;

    @Option(names = "--from", paramLabel = "FILE", description = "Show a saved sweep (its -o json output) instead of running one: no cluster"
            + " needed; with -o html, its heatmap.")
    Path from;

    @Option(names = "--create-rate", paramLabel = "PODS_PER_SECOND", defaultValue = "50",
            description = "Pods created per second at most, so that a large sweep does not flood the API server and the scheduler"
                    + " (default: ${DEFAULT-VALUE}).")
    double createRate;

    @Option(names = "--poll-ms", defaultValue = "1000", hidden = true)
    long pollMillis;

    /** Beyond this, --pairs all is refused: N(N-1)/2 tests in N-1 rounds is hours, where a ring is two rounds. */
    static final int MAX_ALL_PAIRS_NODES = 64;

    @Mixin
    KubeClients kube = new KubeClients();

    private final PodLogs logs;

    PreflightCommand() {
        this(null);
    }

    /** @param logs where the pods' logs come from (null: the API's pods/log) */
    PreflightCommand(PodLogs logs) {
        this.logs = logs;
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (from != null) {
            if (selector != null || nodeNames != null) {
                throw new Railyard.UsageException("--from shows a saved sweep; --selector and --node run a new one: give one of them");
            }
            try {
                return print(PreflightReport.read(from), out);
            } catch (IllegalArgumentException e) {
                throw new Railyard.UsageException("--from " + e.getMessage());
            }
        }
        Pairing.Mode mode = checkedOptions();
        try (KubernetesClient client = kube.connect()) {
            List<Node> nodes = SelectedNodes.of(client, selector, nodeNames);
            Map<String, Double> rates = new HashMap<>();
            List<String> names = new ArrayList<>();
            Map<String, String> unusable = new LinkedHashMap<>();
            int devices = devicesPerNode == null ? Integer.MAX_VALUE : devicesPerNode;
            for (Node node : nodes) {
                String name = node.getMetadata().getName();
                long offered = SelectedNodes.offered(node, resource);
                if (offered == 0) {
                    unusable.put(name, "offers no " + resource + " (is the device plugin running there?)");
                    continue;
                }
                names.add(name);
                devices = devicesPerNode == null ? (int) Math.min(devices, offered) : devices;
                String rate = node.getMetadata().getLabels() == null ? null : node.getMetadata().getLabels().get(Names.PREFIX + "rdma.rate-gbps");
                if (rate != null && rate.matches("\\d+(\\.\\d+)?")) {
                    rates.put(name, Double.valueOf(rate));
                }
            }
            if (mode == Pairing.Mode.ALL && names.size() > MAX_ALL_PAIRS_NODES) {
                long pairCount = (long) names.size() * (names.size() - 1) / 2;
                throw new Railyard.UsageException("--pairs all over " + names.size() + " nodes is " + pairCount + " pairs in "
                        + (names.size() - 1) + " rounds: sweep them in a ring (--pairs ring, two rounds), then --pairs all over the"
                        + " nodes it names, at most " + MAX_ALL_PAIRS_NODES + " at a time");
            }
            if (names.size() < 2) {
                throw new Railyard.UsageException(names.size() + " of the " + nodes.size() + " nodes selected offer " + resource
                        + ": a sweep needs two; check --resource (the device plugin's resource name) and the selection");
            }
            String run = DateTimeFormatter.ofPattern("MMddHHmmss").withZone(ZoneOffset.UTC).format(Instant.now())
                    + String.format("%04x", ThreadLocalRandom.current().nextInt(0x10000));
            PreflightPods.Settings settings = new PreflightPods.Settings(image, resource, devices, hostNetwork, timeoutSeconds, durationSeconds);
            PreflightSweep.Plan plan = new PreflightSweep.Plan(namespace, run, settings, minPercent, rates, lineRateGbps, keep,
                    Duration.ofMillis(pollMillis), createRate);
            PrintWriter err = spec.commandLine().getErr();
            PreflightSweep sweep = new PreflightSweep(client, logs != null ? logs : PodLogs.through(client, PreflightPods.CONTAINER), plan,
                    line -> {
                        if (output == Output.text) {
                            err.println("preflight " + run + ": " + line);
                        }
                    });
            List<List<Pairing.Pair>> rounds = Pairing.rounds(names, mode);
            if (output == Output.text) {
                err.println("preflight " + run + ": " + names.size() + " nodes, " + rounds.stream().mapToInt(List::size).sum() + " pairs in "
                        + rounds.size() + " rounds, " + devices + " HCA(s) each; pods labelled " + Names.PREFLIGHT_LABEL + "=" + run + " in " + namespace);
            }
            List<Link> links = sweep.run(rounds);
            PreflightVerdict verdict = PreflightVerdict.judge(nodes.stream().map(n -> n.getMetadata().getName()).toList(), links, unusable);
            PreflightNodeMarks marks = new PreflightNodeMarks(client, err);
            if (label) {
                marks.label(verdict);
            }
            if (taint) {
                marks.taint(verdict);
            }
            return print(verdict, out);
        }
    }

    private int print(PreflightVerdict verdict, PrintWriter out) {
        out.print(switch (output) {
            case text -> PreflightReport.text(verdict);
            case json -> Json.write(PreflightReport.json(verdict));
            case html -> PreflightHeatmap.html(verdict, Json.write(PreflightReport.json(verdict)));
        });
        out.flush();
        return verdict.passed() ? 0 : 1;
    }

    private Pairing.Mode checkedOptions() {
        if ((selector == null) == (nodeNames == null)) {
            throw new Railyard.UsageException("give the nodes to test: --selector LABELS or --node NAME..., one of them");
        }
        if (minPercent < 1 || minPercent > 100) {
            throw new Railyard.UsageException("--min-percent " + minPercent + " must be between 1 and 100");
        }
        if (!(createRate > 0)) {
            throw new Railyard.UsageException("--create-rate " + createRate + " must be above 0 pods per second");
        }
        if (devicesPerNode != null && devicesPerNode < 1) {
            throw new Railyard.UsageException("--devices-per-node " + devicesPerNode + " must be at least 1");
        }
        if (timeoutSeconds < 10 || durationSeconds < 1 || durationSeconds >= timeoutSeconds) {
            throw new Railyard.UsageException("--timeout " + timeoutSeconds + " and --duration " + durationSeconds
                    + ": the timeout must be at least 10 s and longer than the duration");
        }
        return switch (pairs) {
            case "ring" -> Pairing.Mode.RING;
            case "all" -> Pairing.Mode.ALL;
            default -> throw new Railyard.UsageException("--pairs " + pairs + " is not ring or all");
        };
    }
}
