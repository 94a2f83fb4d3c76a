package io.railyard.diagnose.logs;

import java.util.List;

/**
 * Benchmark results: nccl-tests bus bandwidth or perftest bandwidth, with the rows they came from.
 *
 * @param avgBusGBps nccl-tests' {@code # Avg bus bandwidth}, GB/s
 * @param peakBusGBps the highest bus bandwidth of any row, GB/s
 * @param peakGbps perftest's highest peak bandwidth of any row, Gb/s
 * @param averageGbps perftest's average bandwidth of the largest message size, Gb/s
 * @param lineRatePercent the best result as a share of the given line rate, or null without one
 * @param cpuPercent perftest's {@code CPU_Util[%]} of the largest message size ({@code --cpu_util}): the node's CPUs busy in
 *     user time during the test, as a share of all of them; null when not reported
 * @param typicalLatencyUs a perftest latency test's {@code t_typical} of its smallest message size, microseconds (half the
 *     round trip); null for a bandwidth test
 * @param rows the rows (size, then the numbers of the row), at most {@value LogReport#MAX_ROWS}
 */
public record Bandwidth(Double avgBusGBps, Double peakBusGBps, Double peakGbps, Double averageGbps, Double lineRatePercent,
        Double cpuPercent, Double typicalLatencyUs, long rowCount, List<List<Double>> rows) {

    /** nccl-tests' figures, or another all-reduce benchmark's. */
    static Bandwidth bus(Double avgBusGBps, Double peakBusGBps, Double lineRatePercent, long rowCount, List<List<Double>> rows) {
        return new Bandwidth(avgBusGBps, peakBusGBps, null, null, lineRatePercent, null, null, rowCount, rows);
    }
}
