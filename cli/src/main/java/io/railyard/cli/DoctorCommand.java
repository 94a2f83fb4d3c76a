package io.railyard.cli;

import io.railyard.diagnose.ClusterAccess;
import io.railyard.diagnose.CheckStatus;
import io.railyard.diagnose.Doctor;
import io.railyard.diagnose.DoctorInput;
import io.railyard.diagnose.DoctorReport;
import io.railyard.node.NodeDiscovery;
import io.railyard.node.NodeInventory;
import java.io.File;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code railyard doctor}: checks a node's RDMA stack, from kernel modules to the NCCL variables. */
@Command(
        name = "doctor",
        mixinStandardHelpOptions = true,
        description = "Check this node's RDMA stack for distributed training: drivers, devices, links, MTU, GIDs, "
                + "NCCL variables, GPU-NIC placement, GPUDirect, memlock, Kubernetes, perftest.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:no check failed", "1:a check failed", "2:usage error"})
final class DoctorCommand implements Callable<Integer> {
    enum Output { text, json }

    @Spec
    CommandSpec spec;

    @Mixin
    HostRoot host = new HostRoot();

    @Option(names = {"-o", "--output"}, defaultValue = "text", description = "Output format: ${COMPLETION-CANDIDATES}.")
    Output output;

    @Option(names = {"-v", "--verbose"}, description = "Show the evidence of passing checks too.")
    boolean verbose;

    @Option(names = "--env", paramLabel = "NAME=VALUE", description = "Check this NCCL variable as if it were set (repeatable).")
    Map<String, String> extraEnvironment = new HashMap<>();

    @Option(names = "--resource", defaultValue = InstallationOptions.RDMA_RESOURCE,
            description = "Extended resource the RDMA device plugin advertises (default: RAILYARD_RDMA_RESOURCE, else ${DEFAULT-VALUE}).")
    String resource;

    @Option(names = "--node-name", description = "Kubernetes node name (default: NODE_NAME, else the host name).")
    String nodeName;

    @Option(names = "--kubeconfig", description = "Kubeconfig file (default: KUBECONFIG, ~/.kube/config, else in-cluster credentials).")
    Path kubeconfig;

    @Option(names = "--no-kubernetes", description = "Do not ask the Kubernetes API (the kubernetes check is skipped).")
    boolean noKubernetes;

    @Override
    public Integer call() {
        Path root = host.checked();
        NodeInventory node = NodeDiscovery.discover(root);
        Map<String, String> environment = new HashMap<>(System.getenv());
        environment.putAll(extraEnvironment);
        String name = nodeName != null ? nodeName : environment.getOrDefault("NODE_NAME", node.hostname().orElse("localhost"));
        ClusterAccess cluster = noKubernetes
                ? new ClusterAccess.NoCredentials("--no-kubernetes given")
                : ClusterObserver.observe(kubeconfig, environment, name);
        DoctorReport report = Doctor.run(new DoctorInput(node, environment, searchPath(environment), resource, cluster));
        PrintWriter out = spec.commandLine().getOut();
        switch (output) {
            case json -> out.println(Json.doctor(report));
            case text -> out.print(DoctorText.render(report, root, verbose));
        }
        out.flush();
        return report.status() == CheckStatus.FAIL ? 1 : 0;
    }

    private static List<Path> searchPath(Map<String, String> environment) {
        String path = environment.getOrDefault("PATH", "");
        return Arrays.stream(path.split(File.pathSeparator)).filter(dir -> !dir.isEmpty()).map(Path::of).toList();
    }
}
