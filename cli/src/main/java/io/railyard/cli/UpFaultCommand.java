package io.railyard.cli;

import io.railyard.cli.up.PortFault;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code railyard up fault NODE HCA}: a port of a sandbox's node goes down in that node's tree, as the kernel would show it. */
@Command(
        name = "fault",
        mixinStandardHelpOptions = true,
        description = "Take a port of a node of railyard up down (or, with --clear, up again) in that node's own host tree: its agent"
                + " marks the node RdmaPortDown, and the operator restarts a gang on it off that node.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:the port's state was written", "2:no such sandbox, node, HCA or port"})
final class UpFaultCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NODE", description = "A node of railyard up (rdma-0, rdma-1, ...).")
    String node;

    @Parameters(index = "1", paramLabel = "HCA", description = "One of its RDMA devices (mlx5_1, ...).")
    String hca;

    @Option(names = "--port", defaultValue = "1", description = "The HCA's port (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--clear", description = "Bring the port up again (ACTIVE, LinkUp).")
    boolean clear;

    @Option(names = "--dir", description = "The cluster's state, as railyard up was given (default: ~/.cache/railyard/up).")
    Path dir;

    @Override
    public Integer call() {
        try {
            String said = PortFault.write(UpCommand.sandbox(dir), node, hca, port, !clear);
            spec.commandLine().getOut().println(said);
            return 0;
        } catch (io.railyard.cli.up.SandboxException e) {
            throw new Railyard.UsageException(e.getMessage());
        }
    }
}
