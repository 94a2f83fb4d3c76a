package io.railyard.operator.preflight;

import io.railyard.diagnose.logs.Finding;
import io.railyard.diagnose.logs.KeyValues;
import io.railyard.diagnose.logs.LogAnalysis;
import io.railyard.diagnose.logs.LogReport;
import io.railyard.diagnose.logs.Severity;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.regex.Pattern;

/**
 * What {@code railyard preflight-link} printed: one block of ib_write_bw output per HCA, framed by a begin line (role,
 * HCA, the port's line rate from sysfs) and an end line (exit status), each block read by the perftest analyzer.
 */
public final class HelperOutput {
    public static final String MARK = "railyard-preflight: ";
    private static final Pattern ERROR_TEXT = Pattern.compile("(?i)couldn't|unable|error|failed|refused|timed out");

    /**
     * One HCA's run.
     *
     * @param rateGbps the port's line rate as the pod read it from sysfs, null when unknown
     * @param gbps the average bandwidth, null when the run gave none (always on a server: the client prints results)
     * @param error why there is no result, null when there is one
     */
    public record Run(String role, int index, String hca, Double rateGbps, Double gbps, String error) {}

    /** @param error a failure before any run started (no RDMA device allocated), else null */
    public record Output(List<Run> runs, String error) {
        public List<Run> runs(String role) {
            return runs.stream().filter(run -> run.role().equals(role)).toList();
        }
    }

    private HelperOutput() {}

    public static String begin(String role, int index, String hca, int port, Double rateGbps, String peer) {
        return MARK + "begin role=" + role + " index=" + index + " hca=" + hca + " port=" + port
                + (rateGbps == null ? "" : " rate-gbps=" + Link.plain(rateGbps)) + (peer == null ? "" : " peer=" + peer);
    }

    /** @param exit the exit status, or "timeout" */
    public static String end(String role, int index, String hca, String exit) {
        return MARK + "end role=" + role + " index=" + index + " hca=" + hca + " exit=" + exit;
    }

    public static String error(String message) {
        return MARK + "error " + message;
    }

    public static Output parse(String log) {
        List<Run> runs = new ArrayList<>();
        String error = null;
        Map<String, String> begin = null;
        StringBuilder block = new StringBuilder();
        for (String line : log.split("\n", -1)) {
            int mark = line.indexOf(MARK);
            if (mark < 0) {
                if (begin != null) {
                    block.append(line).append('\n');
                }
                continue;
            }
            String rest = line.substring(mark + MARK.length()).strip();
            if (rest.startsWith("begin ")) {
                begin = KeyValues.of(rest);
                block.setLength(0);
            } else if (rest.startsWith("end ") && begin != null) {
                runs.add(run(begin, KeyValues.of(rest).getOrDefault("exit", "?"), block.toString()));
                begin = null;
            } else if (rest.startsWith("error ") && error == null) {
                error = rest.substring("error ".length());
            }
        }
        if (begin != null) {
            runs.add(run(begin, "cut", block.toString()));
        }
        return new Output(runs, error);
    }

    private static Run run(Map<String, String> begin, String exit, String output) {
        String rate = begin.get("rate-gbps");
        LogReport report = analyze(output);
        Double gbps = report.bandwidth() == null ? null : report.bandwidth().averageGbps();
        String role = begin.getOrDefault("role", "?");
        String error = null;
        // ib_write_bw's server only receives: its results print on the client's side
        if (!exit.equals("0") || (gbps == null && !role.equals(PreflightPods.SERVER))) {
            gbps = null;
            error = switch (exit) {
                case "timeout" -> "no result before the timeout (the peer never connected or the test hung)";
                case "cut" -> "its output ends before the test did";
                default -> report.findings().stream().filter(f -> f.severity() == Severity.ERROR).map(Finding::summary).findFirst()
                        .orElse(errorLine(output, exit));
            };
        }
        return new Run(role, Integer.parseInt(begin.getOrDefault("index", "0")), begin.get("hca"),
                rate == null ? null : Double.valueOf(rate), gbps, error);
    }

    private static LogReport analyze(String output) {
        try {
            return LogAnalysis.analyze("ib_write_bw", new ByteArrayInputStream(output.getBytes(StandardCharsets.UTF_8)), OptionalDouble.empty());
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
    }

    /** perftest's own words where it has some ("Couldn't connect to 10.0.0.2:18515"), else its exit status. */
    private static String errorLine(String output, String exit) {
        return output.lines().map(String::strip).filter(l -> ERROR_TEXT.matcher(l).find()).findFirst()
                .map(l -> "ib_write_bw: " + l).orElse("ib_write_bw exited with status " + exit + " and no result");
    }
}
