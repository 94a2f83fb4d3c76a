package io.railyard.cli.speedup;

import io.railyard.diagnose.logs.Bandwidth;
import io.railyard.diagnose.logs.LogAnalysis;
import io.railyard.diagnose.logs.LogReport;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * One TrainingJob of {@code railyard speedup --collectives}: the all-reduce benchmark under one NCCL network setting,
 * its figures per message size read from rank 0's log.
 *
 * @param error why there are no figures (the job failed, its log held none), else null
 */
public record CollectiveRun(Variant variant, String job, List<Row> rows, String error) {

    /** The network settings compared: their only difference is these variables. */
    public enum Variant {
        GPUDIRECT("rdma-gpudirect", "RDMA with GPUDirect, as Railyard sets it", Map.of()),
        HOST_MEMORY("rdma-host-memory", "RDMA through host memory (GPUDirect off)", Map.of("NCCL_NET_GDR_LEVEL", "LOC")),
        SOCKETS("sockets", "TCP sockets (RDMA off)", Map.of("NCCL_IB_DISABLE", "1"));

        public final String id;
        public final String title;
        public final Map<String, String> env;

        Variant(String id, String title, Map<String, String> env) {
            this.id = id;
            this.title = title;
            this.env = env;
        }
    }

    /** One message size: the slowest rank's mean time per all-reduce, and the bus bandwidth in GB/s. */
    public record Row(long bytes, double timeUs, double busGBps) {}

    public static CollectiveRun failed(Variant variant, String job, String error) {
        return new CollectiveRun(variant, job, List.of(), error);
    }

    public static CollectiveRun of(Variant variant, String job, String rankZeroLog) {
        LogReport report;
        try {
            report = LogAnalysis.analyze(job, new ByteArrayInputStream(rankZeroLog.getBytes(StandardCharsets.UTF_8)), OptionalDouble.empty());
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
        Bandwidth bandwidth = report.bandwidth();
        if (!"allreduce-bench".equals(report.kind()) || bandwidth == null || bandwidth.rows().isEmpty()) {
            return failed(variant, job, "rank 0's log holds no benchmark line (" + CollectiveJobs.MARK + " ...)");
        }
        List<Row> rows = bandwidth.rows().stream().map(r -> new Row(r.get(0).longValue(), r.get(1), r.get(3))).toList();
        return new CollectiveRun(variant, job, rows, null);
    }

    public Optional<Row> row(long bytes) {
        return rows.stream().filter(r -> r.bytes() == bytes).findFirst();
    }

    public String text(CollectiveRun sockets) {
        StringBuilder text = new StringBuilder("collectives ").append(variant.id).append(" (").append(variant.title).append(", job ").append(job).append(")");
        if (error != null) {
            return text.append(": ").append(error).append('\n').toString();
        }
        text.append(": bus bandwidth\n");
        for (Row row : rows) {
            text.append(String.format(Locale.ROOT, "  %8s  %8.2f GB/s  %10.1f µs", size(row.bytes()), row.busGBps(), row.timeUs()));
            Optional<Row> slow = sockets == null || sockets == this ? Optional.empty() : sockets.row(row.bytes());
            slow.filter(s -> s.busGBps() > 0).ifPresent(s -> text.append("  ").append(SpeedupReport.figure(row.busGBps() / s.busGBps())).append("× sockets"));
            text.append('\n');
        }
        return text.toString();
    }

    public Map<String, Object> json() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("variant", variant.id);
        json.put("job", job);
        json.put("env", variant.env);
        json.put("rows", rows);
        json.put("error", error);
        return json;
    }

    /** The claims about synchronisation time: RDMA with GPUDirect against sockets at the largest size both ran. */
    public static void judge(List<CollectiveRun> runs, int nodes, List<SpeedupReport.Claim> claims) {
        if (runs.isEmpty()) {
            return;
        }
        CollectiveRun fast = find(runs, Variant.GPUDIRECT);
        CollectiveRun slow = find(runs, Variant.SOCKETS);
        Row fastRow = null;
        Row slowRow = null;
        if (fast != null && slow != null) {
            for (Row row : fast.rows) {
                Optional<Row> other = slow.row(row.bytes());
                if (other.isPresent() && (fastRow == null || row.bytes() > fastRow.bytes())) {
                    fastRow = row;
                    slowRow = other.get();
                }
            }
        }
        if (fastRow == null || slowRow.timeUs() <= 0) {
            String why = "not checked: the GPUDirect and sockets jobs gave no common message size";
            claims.add(new SpeedupReport.Claim("sync", null, why));
            claims.add(new SpeedupReport.Claim("sync-at-scale", null, why));
            return;
        }
        double percent = fastRow.timeUs() / slowRow.timeUs() * 100;
        String measured = String.format(Locale.ROOT, "an all-reduce of %s takes %s%% of the sockets' time with RDMA and GPUDirect (%d nodes",
                size(fastRow.bytes()), SpeedupReport.figure(percent), nodes);
        claims.add(new SpeedupReport.Claim("sync", percent <= 100 / SpeedupReport.SEVERAL_TIMES,
                measured + "; claim: several times faster, ≤ " + SpeedupReport.figure(100 / SpeedupReport.SEVERAL_TIMES) + "%)"));
        claims.add(nodes >= SCALE_NODES
                ? new SpeedupReport.Claim("sync-at-scale", percent <= TENTH_PERCENT, measured + "; claim: about a tenth at "
                        + SCALE_NODES + " nodes and more, ≤ " + SpeedupReport.figure(TENTH_PERCENT) + "%)")
                : new SpeedupReport.Claim("sync-at-scale", null, "not checked: " + nodes + " nodes, the claim is for " + SCALE_NODES + " and more"));
    }

    public static final int SCALE_NODES = 16;
    /** "About a tenth": a tenth with room for the measurement's noise. */
    public static final double TENTH_PERCENT = 15;

    public static CollectiveRun find(List<CollectiveRun> runs, Variant variant) {
        return runs.stream().filter(r -> r.variant == variant && r.error == null).findFirst().orElse(null);
    }

    public static String size(long bytes) {
        if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + " GiB";
        }
        if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        return bytes >= 1024 && bytes % 1024 == 0 ? (bytes >> 10) + " KiB" : bytes + " B";
    }
}
