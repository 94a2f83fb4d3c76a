package io.railyard.agent.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.railyard.diagnose.inspector.IntervalSpeeds;
import io.railyard.diagnose.inspector.RankSummary;
import java.util.List;
import java.util.function.LongSupplier;

/** The nccl-speed sidecar's series: a rank's last interval of NCCL Inspector records, and the counts so far. */
public final class NcclSpeedCollector implements MultiCollector {
    private final String trainingJob;
    private final String rank;
    private final LongSupplier records;
    private final LongSupplier parseErrors;
    private volatile List<IntervalSpeeds.Speed> latest = List.of();
    private volatile List<RankSummary.Process> processes = List.of();
    private volatile java.util.function.Supplier<java.util.Map<String, Long>> rejections = java.util.Map::of;

    /** @param records and {@code parseErrors}: the counts of the files' lines read so far */
    public NcclSpeedCollector(String trainingJob, String rank, LongSupplier records, LongSupplier parseErrors) {
        this.trainingJob = trainingJob;
        this.rank = rank;
        this.records = records;
        this.parseErrors = parseErrors;
    }

    /** What the job's channel refused, by reason (the first pod's gatherer). */
    public void rejections(java.util.function.Supplier<java.util.Map<String, Long>> counts) {
        this.rejections = counts;
    }

    /** The interval that just closed, the pod's and each process's, served until the next one closes. */
    public void interval(List<IntervalSpeeds.Speed> speeds, List<RankSummary.Process> processes) {
        latest = List.copyOf(speeds);
        this.processes = List.copyOf(processes);
    }

    @Override
    public MetricSnapshots collect() {
        GaugeSnapshot.Builder busBw = GaugeSnapshot.builder().name("railyard_nccl_bus_bandwidth_gbps")
                .help("Median bus bandwidth of the last interval's collectives of this rank, by collective, message size and communicator (GB/s)");
        GaugeSnapshot.Builder busBwP10 = GaugeSnapshot.builder().name("railyard_nccl_bus_bandwidth_p10_gbps")
                .help("10th percentile of the bus bandwidth of the last interval's collectives of this rank (GB/s)");
        GaugeSnapshot.Builder time = GaugeSnapshot.builder().name("railyard_nccl_exec_time_seconds")
                .help("Median time of the last interval's collectives of this rank");
        for (IntervalSpeeds.Speed speed : latest) {
            Labels labels = Labels.of("collective", speed.key().operation(), "comm", speed.key().communicator(), "rank", rank,
                    "size", speed.key().size(), "trainingjob", trainingJob);
            busBw.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels).value(speed.medianGBps()).build());
            busBwP10.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels).value(speed.p10GBps()).build());
            time.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels).value(speed.medianSeconds()).build());
        }
        GaugeSnapshot.Builder gpuBusBw = GaugeSnapshot.builder().name("railyard_nccl_gpu_bus_bandwidth_gbps")
                .help("Median bus bandwidth of the last interval's collectives of one process of this pod, by its global rank, GPU and NIC (GB/s)");
        for (RankSummary.Process process : processes) {
            for (IntervalSpeeds.Speed speed : process.speeds()) {
                gpuBusBw.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(Labels.of("collective", speed.key().operation(),
                        "comm", speed.key().communicator(), "global_rank", String.valueOf(process.rank()), "gpu", String.valueOf(process.gpu()),
                        "nic", process.nic() == null ? "" : process.nic(), "rank", rank, "size", speed.key().size(), "trainingjob", trainingJob))
                        .value(speed.medianGBps()).build());
            }
        }
        CounterSnapshot recordsRead = CounterSnapshot.builder().name("railyard_nccl_inspector_records").help("Inspector records read")
                .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().value(records.getAsLong()).build()).build();
        CounterSnapshot errors = CounterSnapshot.builder().name("railyard_nccl_inspector_parse_errors")
                .help("Complete lines of Inspector's files that were no record")
                .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().value(parseErrors.getAsLong()).build()).build();
        CounterSnapshot.Builder rejected = CounterSnapshot.builder().name("railyard_channel_rejected")
                .help("Connections to the job's own channel refused, by reason: seal (without the job's key), stale (a replay), rank,"
                        + " slow-or-long, memory, busy, unreadable");
        rejections.get().forEach((reason, count) -> rejected.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                .labels(Labels.of("reason", reason)).value(count).build()));
        return MetricSnapshots.of(busBw.build(), busBwP10.build(), time.build(), gpuBusBw.build(), recordsRead, errors, rejected.build());
    }
}
