package io.railyard.diagnose.logs;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** nccl-tests output: the result rows, the average bus bandwidth, and how close the best row came to line rate. */
final class NcclTestsAnalyzer implements Analyzer {
    private static final Pattern AVG = Pattern.compile("#\\s*Avg bus bandwidth\\s*:\\s*([\\d.]+)");
    private static final Pattern ROW = Pattern.compile("^\\s*(\\d+)\\s+(\\d+)\\s+(\\w+)\\s+(\\w+)\\s+(-?\\d+\\s+)?([\\d.]+)\\s+([\\d.]+)\\s+([\\d.]+)\\s+(\\S+)(.*)$");
    private static final String HASH = "#";
    /** Rows smaller than this are latency-bound and say nothing about the network's bandwidth. */
    private static final long LARGE_MESSAGE = 64L << 20;

    private final Findings findings;
    private long hits;
    private Double average;
    private double peak;
    private double peakLarge;
    private long rowCount;
    private final List<List<Double>> rows = new ArrayList<>();
    private Line wrongRow;

    /** nccl-tests' list of devices: {@code #  Rank  0 Group  0 Pid 1789224 on H20-GPU-05 device  0 [...]}. */
    private static final Pattern RANK_LINE = Pattern.compile("^#\\s+Rank\\s+\\d+ .*\\bPid\\s+\\d+ on ");

    NcclTestsAnalyzer(Findings findings) {
        this.findings = findings;
    }

    @Override
    public void accept(Line line) {
        String text;
        if (line.contains(HASH)) {
            text = line.text();
            if (text.contains("Avg bus bandwidth")) {
                Matcher avg = AVG.matcher(text);
                if (avg.find()) {
                    average = Double.parseDouble(avg.group(1));
                    hits++;
                }
            } else if (text.contains("nThread") || text.contains("out-of-place") || text.contains("busbw")
                    || text.contains("Out of bounds values") || text.contains("Collective test concluded")
                    || RANK_LINE.matcher(text).find()) {
                hits++;
            }
            return;
        }
        char first = line.firstNonBlank();
        if (first < '0' || first > '9') {
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
        double outOfPlaceBus = Double.parseDouble(row.group(8));
        List<Double> values = new ArrayList<>(List.of((double) size, Double.parseDouble(row.group(6)),
                Double.parseDouble(row.group(7)), outOfPlaceBus));
        String[] rest = row.group(10).strip().split("\\s+");
        if (rest.length >= 3) {
            values.add(parse(rest[0]));
            values.add(parse(rest[1]));
            values.add(parse(rest[2]));
            peakOf(size, parse(rest[2]));
        }
        peakOf(size, outOfPlaceBus);
        if (!row.group(9).equals("0") && !row.group(9).equals("N/A") && wrongRow == null) {
            findings.add("nccl-tests-wrong-results", Severity.ERROR, "nccl-tests found wrong results (#wrong " + row.group(9) + ")",
                    "data corruption on the path: check GPU and NIC errors (dmesg, XID) and rerun", line);
        }
        if (rows.size() < LogReport.MAX_ROWS) {
            rows.add(values);
        }
    }

    private void peakOf(long size, double busbw) {
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
        report.bandwidth = new Bandwidth(average, rowCount > 0 ? peak : null, null, null, percent, rowCount, rows);
    }
}
