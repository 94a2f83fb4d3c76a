package io.railyard.cli;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.railyard.agent.metrics.MetricsServer;
import io.railyard.agent.metrics.NcclSpeedCollector;
import io.railyard.diagnose.channel.ChannelSeal;
import io.railyard.diagnose.inspector.InspectorFiles;
import io.railyard.diagnose.inspector.IntervalSpeeds;
import io.railyard.diagnose.inspector.JobSpeeds;
import io.railyard.diagnose.inspector.ProcessSpeeds;
import io.railyard.diagnose.inspector.RankSummary;
import io.railyard.diagnose.inspector.SpeedGather;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code railyard nccl-speed}: reads NCCL Inspector's dump directory as it grows and serves, per interval, each
 * collective, size and communicator's bus bandwidth (median, 10th percentile) and time as Prometheus metrics, with the
 * pod's TrainingJob and rank. Each interval's summary goes to the job's first pod, whose sidecar logs the job's line.
 */
@Command(name = "nccl-speed", mixinStandardHelpOptions = true, description = {
        "Read NCCL Inspector's JSON files (NCCL 2.30+ with the Inspector profiler plugin) as they grow and serve each interval's bus"
                + " bandwidth per collective, message size and communicator on /metrics; send each interval to the job's first pod"
                + " (--report-to), or gather every rank's there and log one JSON line per interval (--gather)."})
final class NcclSpeedCommand implements Callable<Integer> {
    /** Where the trainer leaves RAILYARD_GPU_NICS in the dump directory (the operator's trainer command writes it). */
    static final String GPU_NICS_FILE = ".gpu-nics";

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

    @Option(names = "--report-to", paramLabel = "HOST:PORT", description = "The job's first pod's --gather address: each interval's summary is sent there.")
    String reportTo;

    @Option(names = "--gather", paramLabel = "HOST:PORT", description = "Gather every rank's summaries here and log the job's line each interval.")
    String gather;

    @Option(names = "--ranks", paramLabel = "N", description = "With --gather: the pods of the job.", defaultValue = "0")
    int ranks;

    @Option(names = "--slow-percent", paramLabel = "P", description = "With --gather: a rank below this share of the job's median is slow"
            + " (default: ${DEFAULT-VALUE}).", defaultValue = "80")
    int slowPercent;

    @Option(names = "--windows", paramLabel = "N", description = "With --gather: the intervals in a row the operator decides on, the"
            + " recent medians each line keeps (default: ${DEFAULT-VALUE}).", defaultValue = "3")
    int windows;

    @Option(names = "--gpus-per-node", paramLabel = "N", description = "The ranks each pod runs, to tell each process's GPU by its rank"
            + " (default: as many as the pod's Inspector files show).", defaultValue = "0")
    int gpusPerNode;

    @picocli.CommandLine.Mixin
    ChannelKeyOptions channel = new ChannelKeyOptions();

    @Option(names = "--bind-interface", paramLabel = "NAME", description = "With --gather: listen on this interface's address only"
            + " (on the host network: the job's, NCCL_SOCKET_IFNAME's), whatever --gather's host says.")
    String bindInterface;

    @Option(names = "--once", description = "Read what the directory holds now, print it as one interval's summary (a JSON line) and exit.")
    boolean once;

    @Override
    public Integer call() throws Exception {
        validate();
        if (once) {
            return readOnce();
        }
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir); // the plugin writes it when NCCL starts; waiting for it is this command's job
        }
        InspectorFiles files = new InspectorFiles(dir);
        IntervalSpeeds interval = new IntervalSpeeds();
        ProcessSpeeds processes = new ProcessSpeeds(gpusPerNode);
        NcclSpeedCollector collector = new NcclSpeedCollector(trainingJob, rank, files::records, files::parseErrors);
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(collector);
        Duration length = Duration.ofNanos((long) (intervalSeconds * 1e9));
        JobSpeeds job = new JobSpeeds(ranks, slowPercent, windows, length);
        ChannelSeal seal = channel.seal();
        Reporter reporter = reportTo == null ? null : new Reporter(HostPort.parse("--report-to", reportTo), seal);
        String host = InetAddress.getLocalHost().getHostName();
        Termination termination = Termination.listen();
        try (MetricsServer server = HostPort.listen("--listen", HostPort.parse("--listen", listen), address -> MetricsServer.start(address, registry));
                SpeedGather gathering = gather == null ? null : HostPort.listen("--gather", gatherAddress(),
                        address -> SpeedGather.listen(address, job, Clock.systemUTC(), seal, length, ranks, System.err::println))) {
            if (gathering != null) {
                collector.rejections(() -> gathering.rejections().counts());
            }
            System.err.println("nccl-speed: reading " + dir + ", serving /metrics on port " + server.port()
                    + (gathering == null ? "" : ", gathering the job's ranks on port " + gathering.port()));
            long closes = System.nanoTime() + length.toNanos();
            do {
                try {
                    files.poll(record -> {
                        interval.add(record);
                        processes.add(record);
                    });
                } catch (IOException e) {
                    System.err.println("nccl-speed: cannot read " + dir + ": " + e.getMessage());
                }
                if (System.nanoTime() >= closes) {
                    List<IntervalSpeeds.Speed> speeds = interval.close();
                    RankSummary summary = new RankSummary(rank, host, speeds, processes.close(gpuNics()));
                    collector.interval(speeds, summary.processes());
                    if (gathering != null) {
                        job.add(summary, Clock.systemUTC().instant());
                        System.out.println(job.close(Clock.systemUTC().instant()).toJson());
                    } else if (reporter != null) {
                        Thread.ofVirtual().start(() -> reporter.send(summary));
                    }
                    closes += length.toNanos();
                }
            } while (!termination.await(Duration.ofMillis(Math.min(1000, Math.max(10, length.toMillis() / 4)))));
        }
        return 0;
    }

    private int readOnce() throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new Railyard.UsageException("--dir " + dir + " is no directory: give NCCL_INSPECTOR_DUMP_DIR's directory");
        }
        InspectorFiles files = new InspectorFiles(dir);
        IntervalSpeeds interval = new IntervalSpeeds();
        ProcessSpeeds processes = new ProcessSpeeds(gpusPerNode);
        while (files.poll(record -> {
            interval.add(record);
            processes.add(record);
        }) > 0) {
            // a poll reads a chunk of each file: on until the files are read to their end
        }
        System.out.println(new RankSummary(rank, InetAddress.getLocalHost().getHostName(), interval.close(), processes.close(gpuNics())).toJson());
        System.err.println("nccl-speed: " + files.records() + " records, " + files.parseErrors() + " lines that were no record");
        return 0;
    }

    /**
     * Each GPU's NIC as the device plugin gave the trainer them (RAILYARD_GPU_NICS), which the trainer writes into the dump
     * directory as {@value #GPU_NICS_FILE} when it starts; none when it did not.
     */
    private Map<Integer, String> gpuNics() {
        try {
            return ProcessSpeeds.gpuNics(Files.readString(dir.resolve(GPU_NICS_FILE)));
        } catch (IOException e) {
            return Map.of();
        }
    }

    /** --gather's address, its host replaced by --bind-interface's address where one is given. */
    private InetSocketAddress gatherAddress() throws IOException {
        InetSocketAddress given = HostPort.parse("--gather", gather);
        InetAddress bind = InterfaceAddress.of(bindInterface);
        return bind == null ? given : new InetSocketAddress(bind, given.getPort());
    }

    private void validate() {
        if (intervalSeconds <= 0) {
            throw new Railyard.UsageException("--interval must be above 0 seconds");
        }
        if (reportTo != null && gather != null) {
            throw new Railyard.UsageException("--report-to and --gather exclude each other: the first pod gathers, the others report to it");
        }
        if (reportTo != null && rank.isBlank()) {
            throw new Railyard.UsageException("--report-to needs --rank: the first pod names each rank by it");
        }
        if (gather != null && (ranks < 1 || slowPercent < 1 || slowPercent > 100 || windows < 1)) {
            throw new Railyard.UsageException("--gather needs --ranks of 1 or more, --slow-percent from 1 to 100 and --windows of 1 or more");
        }
    }

    /** Sends each summary to the first pod, saying once when that starts failing and once when it works again. */
    private static final class Reporter {
        private final InetSocketAddress to;
        private final ChannelSeal seal;
        private volatile boolean failing;

        Reporter(InetSocketAddress to, ChannelSeal seal) {
            this.to = to;
            this.seal = seal;
        }

        void send(RankSummary summary) {
            try {
                SpeedGather.send(to.getHostString(), to.getPort(), summary, seal, Clock.systemUTC().instant());
                if (failing) {
                    System.err.println("nccl-speed: sending to " + to.getHostString() + ":" + to.getPort() + " again");
                }
                failing = false;
            } catch (IOException e) {
                if (!failing) {
                    System.err.println("nccl-speed: cannot send to " + to.getHostString() + ":" + to.getPort() + ": " + e.getMessage()
                            + " (the job's first pod gathers the ranks; is it running?)");
                }
                failing = true;
            }
        }
    }
}
