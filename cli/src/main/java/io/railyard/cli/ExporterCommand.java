package io.railyard.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code railyard exporter}: the RDMA metrics of a host without Kubernetes. */
@Command(
        name = "exporter",
        mixinStandardHelpOptions = true,
        description = "Serve Prometheus metrics for this host's RDMA ports and the doctor's checks, without the device plugin.")
final class ExporterCommand implements Callable<Integer> {

    @Mixin
    HostRoot host = new HostRoot();

    @Option(names = "--listen", defaultValue = "0.0.0.0:9402", description = "HOST:PORT of /metrics (default: ${DEFAULT-VALUE}).")
    String listen;

    @Override
    public Integer call() throws Exception {
        Termination termination = Termination.listen();
        Path root = host.checked();
        try (NodeMetrics metrics = HostPort.listen("--listen", HostPort.parse("--listen", listen),
                address -> NodeMetrics.start(address, root, "rdma/rdma"))) {
            System.err.println("serving RDMA metrics of " + root + " on http://" + listen.replace("0.0.0.0", "localhost")
                    .replaceAll(":\\d+$", ":" + metrics.port()) + "/metrics");
            termination.await();
        }
        return 0;
    }
}
