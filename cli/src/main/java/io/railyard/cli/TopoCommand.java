package io.railyard.cli;

import io.railyard.node.NcclTopology;
import io.railyard.node.NodeDiscovery;
import io.railyard.node.Sysfs;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code railyard topo}: NCCL's topology XML of a node, from its sysfs. */
@Command(
        name = "topo",
        mixinStandardHelpOptions = true,
        description = {"Print NCCL's topology XML (NCCL_TOPO_FILE) for this node: per NUMA node the PCI bridges and switches down to",
            "each GPU and RDMA NIC, the NICs' ports with speed and GPUDirect capability. In a VM whose PCI tree is flat it",
            "shows that flat tree: start from it, or from your cloud's published file, and place the devices as the host has them."})
final class TopoCommand implements Callable<Integer> {
    @Mixin
    HostRoot host = new HostRoot();

    @Option(names = {"-o", "--output"}, defaultValue = "xml", description = "Output format: xml (the only one).")
    String output;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (!output.equals("xml")) {
            throw new Railyard.UsageException("-o " + output + ": only xml is written (NCCL reads nothing else)");
        }
        Path root = host.checked();
        spec.commandLine().getOut().print(NcclTopology.xml(NodeDiscovery.discover(root), new Sysfs(root)));
        spec.commandLine().getOut().flush();
        return 0;
    }
}
