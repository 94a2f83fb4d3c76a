package io.railyard.diagnose.logs;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** nccl-tests output: the result rows, the average bus bandwidth, and how close the best row came to line rate. */
final class NcclTestsAnalyzer implements Analyzer {
    private static final String NUMBER = "-?(?:[\\d.]+(?:e[+-]?\\d+)?|-?nan|inf)";
    private static final Pattern AVG = Pattern.compile("#\\s*Avg bus bandwidth\\s*:\\s*([\\d.]+)");
    /**
     * size, count, type, the reduction (absent for all_gather and broadcast), the root, then time, algbw, busbw and
     * #wrong (or, before 2.13, the largest error); numbers as C prints them, inf and nan included.
     */
    private static final Pattern ROW = Pattern.compile("^\\s*(\\d+)\\s+(\\d+)\\s+([a-z]\\w*)\\s+(?:([a-z]\\w*)\\s+)?(-?\\d+\\s+)?(" + NUMBER + ")\\s+("
            + NUMBER + ")\\s+(" + NUMBER + ")\\s+(" + NUMBER + "|N/A)(\\s.*)?$");
    private static final Pattern OUT_OF_BOUNDS = Pattern.compile("Out of bounds values\\s*:\\s*(\\d+)\\s+FAILED");
    /** {@code gpu-1-1: Test CUDA failure common.cu:1304 'CUDA-capable device(s) is/are busy or unavailable'}. */
    private static final Pattern TEST_FAILURE = Pattern.compile("Test (NCCL|CUDA) failure \\S+ '([^']*)'?");
    private static final String HASH = "#";
    /** Rows smaller than this are latency-bound and say nothing about the network's bandwidth. */
    private static final long LARGE_MESSAGE = 64L << 20;

    private final Findings findings;
    private long hits;
    private Double average;
    private double peak;
    private double peakLarge;
    private long rowCount;
    private String reason;
    private final List<List<Double>> rows = new ArrayList<>();
    /** Whether the table's columns are nccl-tests' {@code #wrong} counts (2.13 and later) or the largest error (before). */
    private boolean wrongCounts = true;

    /** nccl-tests' list of devices: {@code #  Rank  0 Group  0 Pid 1789224 on H20-GPU-05 device  0 [...]}. */
    private static final Pattern RANK_LINE = Pattern.compile("^#\\s+Rank\\s+\\d+ .*\\bPid\\s+\\d+ on ");

    NcclTestsAnalyzer(Findings findings) {
        this.findings = findings;
    }

    @Override
    public Interest interest() {
        return new Interest(List.of(HASH, "Test ", "nThread"), Interest::row);
    }

    @Override
    public void accept(Line line) {
        String text;
        if (line.contains(HASH)) {
            text = line.text();
            if (text.contains("Avg bus bandwidth")) {
                hits++;
                Matcher avg = AVG.matcher(text);
                if (avg.find()) {
                    average = Double.parseDouble(avg.group(1));
                }
            } else if (text.contains("busbw")) {
                hits++;
                wrongCounts = text.contains("#wrong");
            } else if (text.contains("Out of bounds values")) {
                hits++;
                Matcher failed = OUT_OF_BOUNDS.matcher(text);
                if (failed.find()) {
                    wrong(line, "nccl-tests found " + failed.group(1) + " values out of bounds (FAILED)");
                }
            } else if (text.contains("nThread") || text.contains("out-of-place") || text.contains("Collective test concluded")
                    || RANK_LINE.matcher(text).find()) {
                hits++;
            }
            return;
        }
        if (line.contains("Test ") && line.contains("failure")) {
            testFailure(line);
            return;
        }
        if (line.contains("nThread") && line.contains("minBytes")) {
            hits++; // nccl-tests before 2.0 printed its header without '#'
            return;
        }
        if (!Interest.row(line)) {
            return;
        }
        text = line.text();
        Matcher row = ROW.matcher(text);
        if (!row.find()) {
            return;
        }
        hits++;
        rowCount++;
        long size = Long.parseLong(row.group(1));
        double outOfPlaceBus = parse(row.group(8));
        List<Double> values = new ArrayList<>(List.of((double) size, parse(row.group(6)), parse(row.group(7)), outOfPlaceBus));
        String[] rest = row.group(10) == null ? new String[0] : row.group(10).strip().split("\\s+");
        if (rest.length >= 3) {
            values.add(parse(rest[0]));
            values.add(parse(rest[1]));
            values.add(parse(rest[2]));
            peakOf(size, parse(rest[2]));
        }
        peakOf(size, outOfPlaceBus);
        if (wrongCounts && (parse(row.group(9)) > 0 || (rest.length >= 4 && parse(rest[3]) > 0))) {
            String op = row.group(4) == null ? row.group(3) : row.group(3) + " " + row.group(4);
            wrong(line, "nccl-tests found wrong results at " + size + " B (" + op + "): #wrong " + row.group(9)
                    + (rest.length >= 4 ? " out of place, " + rest[3] + " in place" : ""));
        }
        if (rows.size() < LogReport.MAX_ROWS) {
            rows.add(values);
        }
    }

    /** The first wrong-results line says it; the others (more sizes, the FAILED count) add their lines as evidence. */
    private void wrong(Line line, String summary) {
        findings.add("nccl-tests-wrong-results", Severity.ERROR, summary,
                "data was corrupted on its way: check the NICs' and GPUs' error counters and dmesg (XID, mlx5), test the network "
                        + "plugin or Libfabric version the job used against another, and rerun on other nodes to find the bad one", line);
    }

    /** "Test NCCL failure common.cu:1279 'remote process exited ...'", then " .. host pid N: Test failure common.cu:1189". */
    private void testFailure(Line line) {
        String text = line.text();
        Matcher failure = TEST_FAILURE.matcher(text);
        if (failure.find()) {
            hits++;
            reason = reason == null ? failure.group(1) + " returned '" + failure.group(2) + "'" : reason;
        } else if (text.contains("Test failure")) {
            hits++;
        } else {
            return;
        }
        findings.add("nccl-tests-failed", Severity.ERROR, "nccl-tests stopped with a failure" + (reason == null ? "" : ": " + reason),
                "read the first failure's message; 'busy or unavailable' means another process holds the GPU (compute mode Exclusive "
                        + "Process with more than one rank a GPU); an NCCL error is diagnosed by the NCCL_DEBUG=INFO lines before it", line);
    }

    private void peakOf(long size, double busbw) {
        if (Double.isNaN(busbw) || Double.isInfinite(busbw)) {
            return; // a row whose bandwidth C printed as nan or inf says nothing of the network
        }
        peak = Math.max(peak, busbw);
        if (size >= LARGE_MESSAGE) {
            peakLarge = Math.max(peakLarge, busbw);
        }
    }

    private static double parse(String number) {
        try {
            return Double.parseDouble(number);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    @Override
    public long hits() {
        return hits;
    }

    @Override
    public void finish(LogReport.Builder report) {
        if (rowCount == 0 && average == null) {
            return;
        }
        Double percent = null;
        if (report.lineRateGbps.isPresent() && rowCount > 0) {
            double lineRateGBps = report.lineRateGbps.getAsDouble() / 8;
            double best = peakLarge > 0 ? peakLarge : peak;
            percent = Math.round(best / lineRateGBps * 1000) / 10.0;
            if (percent < 70) {
                findings.conclude("bandwidth-below-line-rate", Severity.WARN, String.format(
                        "best bus bandwidth %.1f GB/s is %.0f%% of the %.0f Gb/s line rate", best, percent, report.lineRateGbps.getAsDouble()),
                        "check that NCCL used RDMA with GPUDirect (NCCL_DEBUG=INFO), the RoCE MTU, PCIe placement, and congestion counters");
            } else {
                findings.conclude("bandwidth-near-line-rate", Severity.INFO, String.format(
                        "best bus bandwidth %.1f GB/s is %.0f%% of the %.0f Gb/s line rate", best, percent, report.lineRateGbps.getAsDouble()), "");
            }
        }
        report.bandwidth = Bandwidth.bus(average, rowCount > 0 ? peak : null, percent, rowCount, rows);
    }
}
