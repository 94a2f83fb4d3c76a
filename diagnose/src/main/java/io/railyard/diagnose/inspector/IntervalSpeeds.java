package io.railyard.diagnose.inspector;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One interval of a rank's Inspector records: per collective, message size and communicator, the bus bandwidth's
 * median and 10th percentile and the median time. Bounded: the last {@value #KEPT} records of each, and
 * {@value #MAX_KEYS} of them.
 */
public final class IntervalSpeeds {
    static final int KEPT = 4096;
    static final int MAX_KEYS = 1024;

    /** @param communicator the communicator's name where Inspector gives one, else its id */
    public record Key(String operation, String size, String communicator) {}

    public record Speed(Key key, double medianGBps, double p10GBps, double medianSeconds, long records) {}

    private static final class Kept {
        final double[] busBw = new double[KEPT];
        final double[] seconds = new double[KEPT];
        long count;
    }

    private Map<Key, Kept> current = new LinkedHashMap<>();

    public synchronized void add(InspectorRecord record) {
        Key key = new Key(record.operation(), InspectorRecord.size(record.sizeBucket()),
                record.communicatorName() != null ? record.communicatorName() : record.communicator());
        if (!current.containsKey(key) && current.size() >= MAX_KEYS) {
            return;
        }
        Kept kept = current.computeIfAbsent(key, k -> new Kept());
        int at = (int) (kept.count++ % KEPT);
        kept.busBw[at] = record.busBandwidthGBps();
        kept.seconds[at] = record.execMicros() / 1e6;
    }

    /** The interval's speeds, most records first; a new interval begins. */
    public synchronized List<Speed> close() {
        List<Speed> speeds = new ArrayList<>();
        current.forEach((key, kept) -> {
            int n = (int) Math.min(kept.count, KEPT);
            double[] busBw = Arrays.copyOf(kept.busBw, n);
            double[] seconds = Arrays.copyOf(kept.seconds, n);
            Arrays.sort(busBw);
            Arrays.sort(seconds);
            speeds.add(new Speed(key, quantile(busBw, 0.5), quantile(busBw, 0.1), quantile(seconds, 0.5), kept.count));
        });
        speeds.sort((a, b) -> Long.compare(b.records(), a.records()));
        current = new LinkedHashMap<>();
        return speeds;
    }

    /** The value at a quantile of sorted values, the nearest rank. */
    static double quantile(double[] sorted, double q) {
        return sorted.length == 0 ? Double.NaN : sorted[(int) Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    }
}
