package io.railyard.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.railyard.cli.fabric.FabricApply;
import io.railyard.cli.pictures.FabricPicture;
import io.railyard.fabric.Fabric;
import io.railyard.fabric.FabricFinding;
import io.railyard.fabric.FabricHealth;
import io.railyard.fabric.FabricInputException;
import io.railyard.fabric.FabricReport;
import io.railyard.fabric.IbLinkInfo;
import io.railyard.fabric.IbNetDiscover;
import io.railyard.fabric.IbQueryErrors;
import io.railyard.fabric.LinkState;
import io.railyard.fabric.PortErrors;
import io.railyard.fabric.SchedulerObjects;
import io.railyard.fabric.Topology;
import io.railyard.node.NcclDeviceFilter;
import io.railyard.node.NcclEnvironment;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code railyard fabric}: the InfiniBand fabric's topology and health, and the labels and scheduler objects that follow it. */
@Command(
        name = "fabric",
        mixinStandardHelpOptions = true,
        description = "Read the InfiniBand fabric (ibnetdiscover, iblinkinfo, ibqueryerrors: saved output, or the tools run here), "
                + "show its tiers, rail groups and what is broken in it; print or apply node labels, Volcano HyperNodes and a Kueue Topology.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:no error finding (with --exit-zero: the tools ran)", "1:an error finding, or the tools or the cluster failed",
            "2:usage error"})
final class FabricCommand implements Callable<Integer> {
    enum Output { text, json, yaml, svg, html }

    @Spec
    CommandSpec spec;

    @Option(names = "--ibnetdiscover", paramLabel = "FILE", description = "Saved ibnetdiscover output (plain, -g or -p); - reads stdin.")
    String ibnetdiscover;

    @Option(names = "--iblinkinfo", paramLabel = "FILE", description = "Saved iblinkinfo output (plain, -l or -d): ports down.")
    String iblinkinfo;

    @Option(names = "--ibqueryerrors", paramLabel = "FILE", description = "Saved ibqueryerrors output: error counters.")
    String ibqueryerrors;

    @Option(names = "--hcas-per-host", paramLabel = "N", description = "HCAs every host should have (default: the count most hosts have).")
    Integer hcasPerHost;

    @Option(names = "--node-name-map", paramLabel = "FILE",
            description = "Lines 'HOST NODE': the Kubernetes node name of each fabric host whose names differ.")
    Path nodeNameMap;

    @Option(names = {"-o", "--output"}, defaultValue = "text", description = "Output format: ${COMPLETION-CANDIDATES}.")
    Output output;

    @Option(names = "--labels", description = "Print (with --apply, write) the nodes' railyard.io/ib-leaf, railyard.io/ib-spine-group,"
            + " railyard.io/fabric.shape and railyard.io/fabric.tiers labels.")
    boolean labels;

    @Option(names = "--shape-file", paramLabel = "FILE", description = "A fabric's shape, tiers and nodes as its operator writes them"
            + " (RoCE, which ibnetdiscover cannot see): with --labels, the nodes' shape labels.")
    Path shapeFile;

    @Option(names = "--hyper-nodes", description = "Print (with --apply, create or update) Volcano HyperNodes: tier 1 per leaf or rail group, tier 2 per spine group.")
    boolean hyperNodes;

    @Option(names = "--kueue-topology", description = "Print (with --apply, create) a Kueue Topology whose levels are these labels and the host name.")
    boolean kueueTopology;

    @Option(names = "--apply", description = "Write what --labels, --hyper-nodes and --kueue-topology print to the cluster.")
    boolean apply;

    @Option(names = "--ca", paramLabel = "HCA", description = "The HCA the tools reach the fabric through (default: the first in NCCL_IB_HCA,"
            + " which the device plugin sets, else the tools' own choice).")
    String ca;

    @Option(names = "--ca-port", paramLabel = "PORT", description = "Its port (default: NCCL_IB_HCA's, else the tools' own choice).")
    Integer caPort;

    @Option(names = "--exit-zero", description = "Exit 0 whatever the fabric shows, 1 only when the tools or the cluster fail: for a CronJob, "
            + "as a real fabric always has a port down somewhere and a Job failing every run says nothing.")
    boolean exitZero;

    @Option(names = "--timeout", defaultValue = "120", paramLabel = "SECONDS", description = "How long each tool may run (default: ${DEFAULT-VALUE}).")
    int timeoutSeconds;

    @Mixin
    KubeClients kube = new KubeClients();

    @Override
    public Integer call() {
        if (apply && !labels && !hyperNodes && !kueueTopology) {
            throw new Railyard.UsageException("--apply writes what --labels, --hyper-nodes or --kueue-topology make: give at least one of them");
        }
        if (hcasPerHost != null && hcasPerHost < 1) {
            throw new Railyard.UsageException("--hcas-per-host " + hcasPerHost + " must be at least 1");
        }
        if (timeoutSeconds < 1) {
            throw new Railyard.UsageException("--timeout " + timeoutSeconds + " must be at least 1 second");
        }
        boolean objectsAsked = labels || hyperNodes || kueueTopology;
        if (objectsAsked && (output == Output.svg || output == Output.html)) {
            throw new Railyard.UsageException("-o " + output + " draws the fabric; --labels, --hyper-nodes and --kueue-topology print objects:"
                    + " use -o yaml or -o json with them");
        }
        PrintWriter out = spec.commandLine().getOut();
        if (shapeFile != null) {
            return shapeLabels(out);
        }
        FabricReport report = report();
        if (!objectsAsked) {
            out.print(switch (output) {
                case text -> report.text();
                case svg -> FabricPicture.svg(report);
                case html -> FabricPicture.html(report);
                case json, yaml -> write(report.json());
            });
        } else {
            Topology topology = report.topology();
            Map<String, Map<String, String>> nodeLabels = labels ? SchedulerObjects.labels(topology) : Map.of();
            List<Map<String, Object>> hyper = hyperNodes ? SchedulerObjects.hyperNodes(topology) : List.of();
            Map<String, Object> kueue = kueueTopology ? SchedulerObjects.kueueTopology(topology) : null;
            // with --apply the cluster is reached first: nothing is printed for a cluster that cannot take it
            try (KubernetesClient client = apply ? kube.connect() : null) {
                printObjects(nodeLabels, hyper, kueue, out);
                if (client != null) {
                    apply(client, nodeLabels, hyper, kueue, out);
                }
            }
            report.findings().stream().filter(f -> f.severity() == FabricFinding.Severity.error)
                    .forEach(f -> spec.commandLine().getErr().println("fabric: " + f.id() + ": " + f.summary()));
        }
        out.flush();
        return report.hasErrors() && !exitZero ? 1 : 0;
    }

    /** The labels of a shape file's nodes, printed or written: no cables, so no tools, no groups, no scheduler objects. */
    private int shapeLabels(PrintWriter out) {
        if (!labels || hyperNodes || kueueTopology || ibnetdiscover != null || output == Output.svg || output == Output.html) {
            throw new Railyard.UsageException("--shape-file gives the nodes' shape labels only: use it with --labels (and -o yaml|json,"
                    + " --apply), without --ibnetdiscover, --hyper-nodes or --kueue-topology");
        }
        Map<String, Map<String, String>> nodeLabels = FabricShapeFile.read(shapeFile).labels();
        try (KubernetesClient client = apply ? kube.connect() : null) {
            printObjects(nodeLabels, List.of(), null, out);
            if (client != null) {
                new FabricApply(client, out).labels(nodeLabels);
            }
        }
        out.flush();
        return 0;
    }

    private FabricReport report() {
        boolean fromFiles = ibnetdiscover != null || iblinkinfo != null || ibqueryerrors != null;
        if (fromFiles && ibnetdiscover == null) {
            throw new Railyard.UsageException("--iblinkinfo and --ibqueryerrors are read beside --ibnetdiscover: give --ibnetdiscover FILE too");
        }
        if (Stream.of(ibnetdiscover, iblinkinfo, ibqueryerrors).filter("-"::equals).count() > 1) {
            throw new Railyard.UsageException("only one of --ibnetdiscover, --iblinkinfo and --ibqueryerrors can read stdin (-)");
        }
        List<String> discovery = fromFiles ? FabricInput.read("--ibnetdiscover", ibnetdiscover) : runTool("ibnetdiscover", true, false);
        List<String> links = fromFiles ? (iblinkinfo == null ? List.of() : FabricInput.read("--iblinkinfo", iblinkinfo))
                : runTool("iblinkinfo", false, false);
        List<String> errors = fromFiles ? (ibqueryerrors == null ? List.of() : FabricInput.read("--ibqueryerrors", ibqueryerrors))
                : runTool("ibqueryerrors", false, true);
        Fabric fabric = parse("--ibnetdiscover", discovery, IbNetDiscover::parse);
        List<LinkState> linkStates = parse("--iblinkinfo", links, IbLinkInfo::parse);
        List<PortErrors> portErrors = parse("--ibqueryerrors", errors, IbQueryErrors::parse);
        Topology topology = Topology.of(fabric, nodeNames());
        return new FabricReport(fabric, topology, FabricHealth.check(fabric, topology, linkStates, portErrors, hcasPerHost));
    }

    private List<String> runTool(String tool, boolean required, boolean exitOneIsFindings) {
        return FabricInput.onPath(tool).map(path -> FabricInput.run(path, viaPort(), timeoutSeconds, exitOneIsFindings)).orElseGet(() -> {
            if (required) {
                throw new Railyard.UsageException(tool + " is not on PATH: install infiniband-diags on a node that sees the fabric,"
                        + " or give its saved output with --" + tool + " FILE");
            }
            return List.of();
        });
    }

    /** {@code -C HCA -P PORT} for the tools: the options, else the first entry of the NCCL_IB_HCA the device plugin set. */
    private List<String> viaPort() {
        String hca = ca;
        Integer port = caPort;
        NcclDeviceFilter.Entry allocated = allocatedPort();
        if (hca == null && allocated != null) {
            hca = allocated.name();
            port = port != null ? port : allocated.port() > 0 ? allocated.port() : null;
        }
        List<String> args = new ArrayList<>();
        if (hca != null) {
            args.addAll(List.of("-C", hca));
        }
        if (port != null) {
            args.addAll(List.of("-P", String.valueOf(port)));
        }
        return args;
    }

    /** The first HCA port NCCL_IB_HCA names, when it names ports to use rather than ones to leave out. */
    private static NcclDeviceFilter.Entry allocatedPort() {
        String value = System.getenv(NcclEnvironment.IB_HCA);
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            NcclDeviceFilter filter = NcclDeviceFilter.parse(value);
            return filter.exclude() || filter.entries().isEmpty() ? null : filter.entries().getFirst();
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static <T> T parse(String option, List<String> lines, Function<List<String>, T> parser) {
        try {
            return parser.apply(lines);
        } catch (FabricInputException e) {
            throw new Railyard.UsageException(option + ": " + e.getMessage());
        }
    }

    private Map<String, String> nodeNames() {
        Map<String, String> names = new LinkedHashMap<>();
        if (nodeNameMap == null) {
            return names;
        }
        List<String> lines = FabricInput.read("--node-name-map", nodeNameMap.toString());
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).replaceFirst("#.*", "").strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] words = line.split("\\s+");
            if (words.length != 2) {
                throw new Railyard.UsageException("--node-name-map " + nodeNameMap + " line " + (i + 1) + ": '" + lines.get(i).strip()
                        + "' is not 'HOST NODE'");
            }
            names.put(words[0], words[1]);
        }
        return names;
    }

    private void printObjects(Map<String, Map<String, String>> nodeLabels, List<Map<String, Object>> hyper, Map<String, Object> kueue,
            PrintWriter out) {
        List<Object> objects = new ArrayList<>();
        nodeLabels.forEach((node, labelsOfNode) -> objects.add(SchedulerObjects.object("v1", "Node",
                SchedulerObjects.metadata(node, labelsOfNode), null)));
        objects.addAll(hyper);
        if (kueue != null) {
            objects.add(kueue);
        }
        if (output == Output.json) {
            Map<String, Object> list = new LinkedHashMap<>();
            list.put("apiVersion", "v1");
            list.put("kind", "List");
            list.put("items", objects);
            out.print(write(list));
        } else {
            objects.forEach(object -> out.print(write(object)));
        }
    }

    private void apply(KubernetesClient client, Map<String, Map<String, String>> nodeLabels, List<Map<String, Object>> hyper,
            Map<String, Object> kueue, PrintWriter out) {
        FabricApply writer = new FabricApply(client, out);
        if (labels) {
            writer.labels(nodeLabels);
        }
        if (hyperNodes) {
            skipIfNotServed(() -> writer.hyperNodes(hyper), FabricApply.HYPER_NODES, "--hyper-nodes", "install Volcano 1.12 or later");
        }
        if (kueueTopology) {
            try {
                skipIfNotServed(() -> writer.kueueTopology(kueue), FabricApply.KUEUE_TOPOLOGIES, "--kueue-topology", "install Kueue 0.14 or later");
            } catch (IllegalStateException e) {
                throw new Railyard.UsageException(e.getMessage()); // a Topology of other levels: the user decides
            }
        }
    }

    /** A scheduler the cluster does not run is one line, and the rest is still written: the labels are worth having alone. */
    private void skipIfNotServed(Runnable call, ResourceDefinitionContext api, String flag, String install) {
        try {
            call.run();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
            spec.commandLine().getErr().println("fabric: the cluster has no " + api.getKind() + " API (" + api.getGroup() + "/" + api.getVersion()
                    + "): skipped; " + install + ", or leave out " + flag);
        }
    }

    private String write(Object value) {
        if (output == Output.json) {
            return TreeJson.write(value) + "\n";
        }
        return Serialization.asYaml(value);
    }
}
