package io.railyard.diagnose.logs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The lines of Railyard's all-reduce benchmark ({@code railyard speedup --collectives}), one per message size:
 * {@code railyard-allreduce size=1048576 ranks=16 iters=20 time_us=512.3 algbw_gbs=2.05 busbw_gbs=3.84}, after a
 * {@code railyard-allreduce start ...} line with NCCL's version and network variables. Bus bandwidth as nccl-tests
 * computes it: algorithm bandwidth × 2(n−1)/n. It reports figures, not faults: NCCL's own lines around it carry those.
 */
final class AllreduceBenchAnalyzer implements Analyzer {
    static final String MARK = "railyard-allreduce ";

    private long hits;
    private final List<List<Double>> rows = new ArrayList<>();
    private double peakBus;
    private double sumBus;

    @Override
    public Interest interest() {
        return Interest.words(List.of(MARK));
    }

    @Override
    public void accept(Line line) {
        if (!line.contains(MARK)) {
            return;
        }
        String text = line.text();
        Map<String, String> fields = KeyValues.of(text.substring(text.indexOf(MARK) + MARK.length()));
        hits++;
        try {
            if (fields.containsKey("size") && fields.containsKey("busbw_gbs")) {
                double bus = Double.parseDouble(fields.get("busbw_gbs"));
                peakBus = Math.max(peakBus, bus);
                sumBus += bus;
                if (rows.size() < LogReport.MAX_ROWS) {
                    rows.add(List.of(Double.parseDouble(fields.get("size")), Double.parseDouble(fields.getOrDefault("time_us", "NaN")),
                            Double.parseDouble(fields.getOrDefault("algbw_gbs", "NaN")), bus));
                }
            }
        } catch (NumberFormatException e) {
            // a line cut inside a figure: its other lines still count
        }
    }

    @Override
    public long hits() {
        return hits;
    }

    @Override
    public void finish(LogReport.Builder report) {
        if (!rows.isEmpty() && report.bandwidth == null) {
            report.bandwidth = Bandwidth.bus(Math.round(sumBus / rows.size() * 100) / 100.0, peakBus, null, rows.size(), List.copyOf(rows));
        }
    }
}
