package io.railyard.cli.speedup;

import io.railyard.diagnose.logs.KeyValues;
import io.railyard.diagnose.logs.LogAnalysis;
import io.railyard.diagnose.logs.LogReport;
import io.railyard.diagnose.logs.Severity;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code railyard speedup-link} printed: its framed tests, each tool's output read by {@code analyze}'s analyzers
 * (perftest, iperf3), the TCP round trip, and the tests it skipped with the reason.
 */
public final class SpeedupOutput {
    /** What begins each of the helper's own lines, framing its tests. */
    public static final String MARK = "railyard-speedup: ";
    private static final Pattern ROUND_TRIP = Pattern.compile("tcp-lat samples=\\d+ rtt-us=([\\d.]+)");

    /** One framed test: its begin line's fields, its exit, and what the analyzers read in its output. */
    public record Test(Map<String, String> fields, String exit, LogReport report, String output) {
        public String name() {
            return fields.getOrDefault("test", "?");
        }

        public boolean ok() {
            return exit.equals("0");
        }

        public Integer cpus() {
            String cpus = fields.get("cpus");
            return cpus != null && cpus.matches("\\d+") ? Integer.valueOf(cpus) : null;
        }

        /** Why it gave no result, in the tool's own words where it has some. */
        public String failure() {
            if (exit.equals("timeout")) {
                return "no result before the timeout (the peer never connected or the test hung)";
            }
            if (exit.equals("127")) {
                return output.lines().findFirst().orElse("the tool could not be started") + " (is it in the image?)";
            }
            return report.findings().stream().filter(f -> f.severity() == Severity.ERROR).map(f -> f.summary()).findFirst()
                    .orElse(output.lines().map(String::strip).filter(l -> !l.isEmpty()).reduce((a, b) -> b)
                            .map(l -> "exit " + exit + ": " + l).orElse("exit " + exit + " and no output"));
        }
    }

    final List<Test> tests = new ArrayList<>();
    /** Skipped tests by name ({@code rdma}): the reason. */
    final Map<String, String> skipped = new HashMap<>();
    Double roundTripMicros;

    public static SpeedupOutput parse(String log) {
        SpeedupOutput parsed = new SpeedupOutput();
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
            Matcher roundTrip = ROUND_TRIP.matcher(rest);
            if (rest.startsWith("begin ")) {
                begin = KeyValues.of(rest);
                block.setLength(0);
            } else if (rest.startsWith("end ") && begin != null) {
                parsed.tests.add(test(begin, KeyValues.of(rest).getOrDefault("exit", "?"), block.toString()));
                begin = null;
            } else if (rest.startsWith("skip ")) {
                Map<String, String> skip = KeyValues.of(rest);
                parsed.skipped.put(skip.getOrDefault("test", "?"), rest.substring(rest.indexOf("reason=") + "reason=".length()));
            } else if (roundTrip.find()) {
                parsed.roundTripMicros = Double.valueOf(roundTrip.group(1));
            }
        }
        if (begin != null) {
            parsed.tests.add(test(begin, "cut", block.toString()));
        }
        return parsed;
    }

    public List<Test> tests(String name) {
        return tests.stream().filter(t -> t.name().equals(name)).toList();
    }

    private static Test test(Map<String, String> begin, String exit, String output) {
        try {
            LogReport report = LogAnalysis.analyze(begin.getOrDefault("test", "?"), new ByteArrayInputStream(output.getBytes(StandardCharsets.UTF_8)),
                    OptionalDouble.empty());
            return new Test(begin, exit, report, output);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
    }
}
