package io.railyard.cli;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.railyard.agent.AgentConfig;
import io.railyard.node.NodeDiscovery;
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

    @Mixin
    PodResourcesOptions podResources = new PodResourcesOptions();

    @Option(names = "--no-hardware-counters", description = "Leave out the ports' driver counters (hw_counters: ECN, CNP, retries), the most"
            + " numerous series, as the agent's metrics.hardwareCounters: false does.")
    boolean noHardwareCounters;

    @Override
    public Integer call() throws Exception {
        Termination termination = Termination.listen();
        Path root = host.checked();
        PodResourcesOptions.Attribution attribution = podResources.start(null, NodeDiscovery.discover(root), AgentConfig.defaults(), "",
                null, null);
        MultiCollector[] more = attribution == null ? new MultiCollector[0] : new MultiCollector[] {attribution.collector()};
        try (attribution; NodeMetrics metrics = HostPort.listen("--listen", HostPort.parse("--listen", listen),
                address -> NodeMetrics.start(address, root, "rdma/rdma", !noHardwareCounters, more))) {
            System.err.println("serving RDMA metrics of " + root + " on http://" + listen.replace("0.0.0.0", "localhost")
                    .replaceAll(":\\d+$", ":" + metrics.port()) + "/metrics");
            termination.await();
        }
        return 0;
    }
}
