package io.railyard.cli;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.railyard.agent.metrics.MetricsServer;
import io.railyard.diagnose.inspector.IntervalSpeeds;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code railyard nccl-speed}: reads NCCL Inspector's dump directory as it grows and serves, per interval, each
 * collective, size and communicator's bus bandwidth (median, 10th percentile) and time as Prometheus metrics, with the
 * pod's TrainingJob and rank.
 */
@Command(name = "nccl-speed", mixinStandardHelpOptions = true, description = {
        "Read NCCL Inspector's JSON files (NCCL 2.30+ with the Inspector profiler plugin) as they grow and serve each interval's bus"
                + " bandwidth per collective, message size and communicator on /metrics."})
final class NcclSpeedCommand implements Callable<Integer> {
    @Option(names = "--dir", paramLabel = "DIR", description = "Inspector's dump directory, as NCCL_INSPECTOR_DUMP_DIR (default: ${DEFAULT-VALUE}).",
            defaultValue = "${env:NCCL_INSPECTOR_DUMP_DIR:-nccl-inspector-unknown-jobid}")
    Path dir;

    @Option(names = "--interval", paramLabel = "SECONDS", description = "Seconds each summary covers (default: ${DEFAULT-VALUE}).",
            defaultValue = "30")
    double intervalSeconds;

    @Option(names = "--listen", paramLabel = "HOST:PORT", description = "Where /metrics is served (default: ${DEFAULT-VALUE}).",
            defaultValue = "0.0.0.0:9403")
    String listen;

    @Option(names = "--trainingjob", paramLabel = "NAME", description = "The pod's TrainingJob, a label of every series (default: none).",
            defaultValue = "")
    String trainingJob;

    @Option(names = "--rank", paramLabel = "N", description = "The pod's node rank, a label of every series (default: none).",
            defaultValue = "")
    String rank;

    @Override
    public Integer call() throws Exception {
        if (intervalSeconds <= 0) {
            throw new Railyard.UsageException("--interval must be above 0 seconds");
        }
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir); // the plugin writes it when NCCL starts; waiting for it is this command's job
        }
        InspectorFiles files = new InspectorFiles(dir);
        IntervalSpeeds interval = new IntervalSpeeds();
        Speeds collector = new Speeds(files, trainingJob, rank);
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(collector);
        Termination termination = Termination.listen();
        try (MetricsServer server = HostPort.listen("--listen", HostPort.parse("--listen", listen), address -> MetricsServer.start(address, registry))) {
            System.err.println("nccl-speed: reading " + dir + ", serving /metrics on port " + server.port());
            long intervalNanos = (long) (intervalSeconds * 1e9);
            long closes = System.nanoTime() + intervalNanos;
            do {
                try {
                    files.poll(interval::add);
                } catch (IOException e) {
                    System.err.println("nccl-speed: cannot read " + dir + ": " + e.getMessage());
                }
                if (System.nanoTime() >= closes) {
                    collector.latest = interval.close();
                    closes += intervalNanos;
                }
            } while (!termination.await(Duration.ofMillis(Math.min(1000, Math.max(10, intervalNanos / 1_000_000 / 4)))));
        }
        return 0;
    }

    /** The last interval's speeds and the counts so far, as Prometheus reads them. */
    static final class Speeds implements MultiCollector {
        private final InspectorFiles files;
        private final String trainingJob;
        private final String rank;
        volatile List<IntervalSpeeds.Speed> latest = List.of();

        Speeds(InspectorFiles files, String trainingJob, String rank) {
            this.files = files;
            this.trainingJob = trainingJob;
            this.rank = rank;
        }

        @Override
        public MetricSnapshots collect() {
            GaugeSnapshot.Builder busBw = GaugeSnapshot.builder().name("railyard_nccl_bus_bandwidth_gbps")
                    .help("Bus bandwidth of the last interval's collectives of this rank, by collective, message size and communicator (GB/s)");
            GaugeSnapshot.Builder time = GaugeSnapshot.builder().name("railyard_nccl_exec_time_seconds")
                    .help("Median time of the last interval's collectives of this rank");
            for (IntervalSpeeds.Speed speed : latest) {
                Labels labels = Labels.of("collective", speed.key().operation(), "comm", speed.key().communicator(), "rank", rank,
                        "size", speed.key().size(), "trainingjob", trainingJob);
                busBw.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels.add("quantile", "0.5")).value(speed.medianGBps()).build());
                busBw.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels.add("quantile", "0.1")).value(speed.p10GBps()).build());
                time.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels.add("quantile", "0.5")).value(speed.medianSeconds()).build());
            }
            CounterSnapshot records = CounterSnapshot.builder().name("railyard_nccl_inspector_records").help("Inspector records read")
                    .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().value(files.records()).build()).build();
            CounterSnapshot errors = CounterSnapshot.builder().name("railyard_nccl_inspector_parse_errors")
                    .help("Complete lines of Inspector's files that were no record")
                    .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().value(files.parseErrors()).build()).build();
            return MetricSnapshots.of(busBw.build(), time.build(), records, errors);
        }
    }
}
