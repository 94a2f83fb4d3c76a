package io.railyard.diagnose.logs;

import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** ibqueryerrors and perfquery output: ports with error counters beyond their thresholds, and the fabric summary. */
final class IbErrorsAnalyzer implements Analyzer {
    private static final Pattern PORT_ERRORS = Pattern.compile("GUID (0x\\w+) port (\\w+):(.*)");
    private static final Pattern COUNTER = Pattern.compile("\\[(\\w+) == (\\d+)\\]");
    private static final Pattern NODE = Pattern.compile("Errors for (?:0x\\w+ )?\"([^\"]*)\"");
    /** perfquery's counters; ibportstate prints the same dotted form for Lid, SMLid and LMC, which are not counters. */
    private static final Pattern PERFQUERY = Pattern.compile(
            "^((?:Port|Counter|Symbol|LinkErrorRecovery|LinkDowned|LocalLink|Excessive|VL15|QP1)\\w*):\\.+(\\d+)\\s*$");
    private static final Pattern PERFQUERY_HEADER = Pattern.compile("^# Port (?:extended )?counters: (Lid \\d+ port \\w+)");
    private static final Pattern SUMMARY = Pattern.compile("##\\s+(\\d+) ports checked, (\\d+) ports have errors");
    /** PMA counters that mean a bad link, as opposed to traffic or congestion. */
    private static final Set<String> LINK_ERRORS = Set.of("SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter",
            "PortRcvErrors", "PortRcvRemotePhysicalErrors", "LocalLinkIntegrityErrors", "ExcessiveBufferOverrunErrors",
            "PortXmitDiscards");

    private static final String ERRORS_FOR = "Errors for ";
    private static final String GUID = "GUID 0x";
    private static final String HASHES = "##";
    private static final String DOTS = ":....";
    private static final String PORT_COUNTERS = "# Port ";

    private static final String MAXED_OUT = "is maxed out on";
    private static final Pattern MAXED_OUT_ON = Pattern.compile("Counters on (\\S+ port \\d+) is maxed out on (\\w+)");

    private final Findings findings;
    private long hits;
    private String node = "";
    private final Map<String, Long> perfquery = new LinkedHashMap<>();
    private long perfqueryLine;
    private String perfqueryPort = "perfquery";

    IbErrorsAnalyzer(Findings findings) {
        this.findings = findings;
    }

    @Override
    public Interest interest() {
        return Interest.words(List.of(MAXED_OUT, ERRORS_FOR, GUID, HASHES, DOTS, PORT_COUNTERS));
    }

    @Override
    public void accept(Line line) {
        if (line.contains(MAXED_OUT)) {
            maxedOut(line);
            return;
        }
        if (!line.contains(ERRORS_FOR) && !line.contains(GUID) && !line.startsWith(HASHES, 0) && !line.contains(DOTS)
                && !line.startsWith(PORT_COUNTERS, 0)) {
            return;
        }
        String text = line.text();
        Matcher nodeLine = NODE.matcher(text);
        if (nodeLine.find()) {
            hits++;
            node = nodeLine.group(1);
            return;
        }
        Matcher port = PORT_ERRORS.matcher(text);
        if (port.find()) {
            hits++;
            Map<String, Long> counters = counters(port.group(3));
            String errors = counters.keySet().stream().filter(LINK_ERRORS::contains).map(c -> c + "=" + counters.get(c))
                    .reduce((a, b) -> a + ", " + b).orElse("");
            if (!errors.isEmpty()) {
                findings.add("port-errors", Severity.WARN, "ports with link error counters beyond their thresholds (first: "
                                + (node.isEmpty() ? port.group(1) : node) + " port " + port.group(2) + ": " + errors + ")",
                        "replace or reseat the cable or optic of each listed port; clear the counters (ibqueryerrors -k) and watch "
                                + "whether they rise again", line);
            } else if (counters.containsKey("PortXmitWait")) {
                findings.add("port-congestion", Severity.INFO, "ports waiting for credits (PortXmitWait): congestion, not a fault",
                        "compare with the job's bandwidth; spread the traffic or check the fabric's routing", line);
            }
            return;
        }
        Matcher summary = SUMMARY.matcher(text);
        if (summary.find()) {
            hits++;
            return;
        }
        Matcher header = PERFQUERY_HEADER.matcher(text);
        if (header.find() && perfquery.isEmpty()) {
            perfqueryPort = header.group(1);
            return;
        }
        Matcher counter = PERFQUERY.matcher(text);
        if (counter.find()) {
            hits++;
            if (perfquery.isEmpty()) {
                perfqueryLine = line.number();
            }
            if (perfquery.size() < 256) {
                perfquery.put(counter.group(1), Long.parseLong(counter.group(2)));
            }
        }
    }

    private static Map<String, Long> counters(String text) {
        Map<String, Long> counters = new LinkedHashMap<>();
        Matcher counter = COUNTER.matcher(text);
        while (counter.find()) {
            counters.put(counter.group(1), Long.parseLong(counter.group(2)));
        }
        return counters;
    }

    /** infiniband-exporter: "Counters on 0xc42a10300dd0c0e port 1 is maxed out on PortRcvErrors". Its log, not ibqueryerrors'. */
    private void maxedOut(Line line) {
        Matcher maxed = MAXED_OUT_ON.matcher(line.text());
        findings.add("counters-maxed-out", Severity.WARN, "port counters stopped at their maximum" + (maxed.find()
                        ? " (" + maxed.group(2) + " on " + maxed.group(1) + ")" : "") + ": they no longer count new errors",
                "reset them (perfquery -R, or infiniband-exporter --can-reset-counter) and watch how fast they grow again; "
                        + "a saturated error counter means a bad link long before the reset", line);
    }

    @Override
    public long hits() {
        return hits;
    }

    @Override
    public void finish(LogReport.Builder report) {
        String errors = perfquery.entrySet().stream().filter(e -> LINK_ERRORS.contains(e.getKey()) && e.getValue() > 0)
                .map(e -> e.getKey() + "=" + e.getValue()).reduce((a, b) -> a + ", " + b).orElse("");
        if (!errors.isEmpty()) {
            findings.add("port-errors", Severity.WARN, "perfquery shows link error counters: " + errors,
                    "replace or reseat the cable or optic; clear the counters (perfquery -x -r) and watch whether they rise again",
                    perfqueryLine, "perfquery counters from line " + perfqueryLine);
        }
        if (!perfquery.isEmpty()) {
            report.ports.add(new PortFacts(perfqueryPort, null, null, null, null, null, null, null, perfquery));
        }
    }
}
