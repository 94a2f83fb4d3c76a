package io.railyard.diagnose.logs;

import io.railyard.diagnose.ras.HangDetector;
import io.railyard.diagnose.ras.RasJson;
import io.railyard.diagnose.ras.RasReport;
import io.railyard.diagnose.ras.RasText;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A pasted NCCL RAS status report, JSON or text of any version: its facts, and the ranks it shows missing, dead or
 * behind. The report is kept from its first RAS line on, up to a bound: RAS reports are a few MB at most.
 */
final class RasAnalyzer implements Analyzer {
    private static final int MAX_CHARS = 16 << 20;
    private static final Pattern BLOCK = Pattern.compile("^\\s*#\\d+-\\d+ \\([0-9a-fA-F]+\\) [A-Z]");

    /** The words a RAS text line starts with, where it does not start with a digit or '#'. */
    private static final String[] LINE_STARTS = {"Communicator ranks", "Communicators...", "Missing communicator data", "Group     Comms"};
    private static final Pattern RANK_OR_PROCESS = Pattern.compile("^\\s*(?:Rank \\d+ (?:--|has )|Process \\d+ on node )");

    private final Findings findings;
    private final StringBuilder report = new StringBuilder();
    private long hits;
    private long firstLine;
    private String firstText;
    private boolean json;
    private String versionLine;

    /** How far into an input a RAS report is looked for: ncclras's output is pasted on its own, or near the top. */
    private static final int HEAD_BYTES = 64 << 10;
    /** Words only a RAS report has, text (2.24+) or JSON; the text report always ends with its Warnings heading. */
    private static final String[] HEAD_WORDS = {"\"nccl_version\"", "ranks have launched up to operation", "have not launched any operations",
        "Missing communicator data", "(unreachable via the RAS network)", "Comms     Nodes", "\nWarnings\n========", ") MISMATCH\n",
        ") INCOMPLETE\n"};

    /** Whether the head of a (mark-supporting) input holds a RAS report's lines; the input is left where it was. */
    static boolean startsWithReport(InputStream input) throws IOException {
        byte[] bytes = new byte[HEAD_BYTES];
        input.mark(HEAD_BYTES);
        int read = input.readNBytes(bytes, 0, HEAD_BYTES);
        input.reset();
        String head = new String(bytes, 0, read, StandardCharsets.ISO_8859_1).replace("\r\n", "\n");
        for (String word : HEAD_WORDS) {
            if (head.contains(word)) {
                return true;
            }
        }
        return false;
    }

    RasAnalyzer(Findings findings) {
        this.findings = findings;
    }

    @Override
    public void accept(Line line) {
        boolean marker = marker(line);
        if (firstText == null && !marker) {
            if (line.startsWith("NCCL version", 0)) {
                versionLine = line.text(); // the text report's first line; kept only if a RAS line follows
            }
            return;
        }
        String text = line.text();
        if (marker) {
            hits++;
        }
        if (firstText == null) {
            firstLine = line.number();
            firstText = text;
            json = line.firstNonBlank() == '"';
            report.append(json ? "{\n" : versionLine == null ? "" : versionLine + "\n");
        }
        if (report.length() < MAX_CHARS) {
            report.append(text).append('\n');
        }
    }

    /**
     * Whether a line is one only a RAS report has, decided mostly on its first character: most lines of a large log
     * are rejected there.
     */
    private static boolean marker(Line line) {
        char first = line.firstNonBlank();
        if (first == '"') {
            return line.contains("\"nccl_version\"") || line.contains("\"collective_counts\"") || line.contains("\"missing_ranks\"");
        }
        if (first == '#') {
            return BLOCK.matcher(line.text()).find();
        }
        if (Character.isDigit(first)) {
            return line.contains(" ranks have ") || line.contains(" considered dead") || RasText.isGroupRow(line.text());
        }
        if (first == 'R' || first == 'P') {
            return RANK_OR_PROCESS.matcher(line.text()).find();
        }
        if (first != 'C' && first != 'M' && first != 'G') {
            return false;
        }
        int at = line.indexOf(String.valueOf(first), 0);
        for (String word : LINE_STARTS) {
            if (line.startsWith(word, at)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public long hits() {
        return hits;
    }

    @Override
    public void finish(LogReport.Builder builder) {
        if (hits == 0) {
            return;
        }
        RasReport parsed;
        try {
            parsed = json ? RasJson.parse(report.toString()) : RasText.parse(report.toString());
        } catch (IllegalArgumentException e) {
            findings.conclude("ras-unreadable", Severity.WARN, "a RAS JSON report that cannot be read (" + e.getMessage() + ")",
                    "paste the whole report: ncclras -f json, or the text report (ncclras -v)");
            return;
        }
        // one report: launch counts differ normally between ranks; only a missing or dead rank is a verdict
        HangDetector.Verdict verdict = new HangDetector(Duration.ofDays(1)).observe(parsed, Instant.EPOCH);
        List<String> missing = verdict.ranks().stream().map(RasAnalyzer::who).toList();
        List<String> behind = behind(parsed);
        Set<String> hosts = new HashSet<>();
        parsed.communicators().forEach(c -> {
            c.operations().values().forEach(groups -> groups.forEach(g -> g.named().forEach(r -> hosts.add(r.host()))));
            c.missing().forEach(r -> hosts.add(r.host()));
        });
        parsed.dead().forEach(r -> hosts.add(r.host()));
        hosts.remove(null);
        boolean unhealthyGroup = parsed.groups().stream().anyMatch(g -> !g.errors().equals("OK") || !g.status().equals("RUNNING"));
        String status = !missing.isEmpty() ? "ranks missing" : !behind.isEmpty() ? "ranks behind"
                : unhealthyGroup ? "communicators not all RUNNING OK" : "healthy";
        builder.ras = new RasSummary(parsed.ncclVersion(), parsed.ranks(), hosts.size(), parsed.communicators().size(), status);
        if (!parsed.dead().isEmpty()) {
            findings.add("ras-dead-process", Severity.ERROR, "RAS considers " + parsed.dead().size() + " NCCL process(es) dead: "
                            + parsed.dead().stream().map(RasReport.Rank::describe).collect(Collectors.joining("; ")),
                    "the process is gone or its node unreachable: check that pod and node (railyard doctor on it); the job "
                            + "cannot progress until it is restarted", firstLine, firstText);
        } else if (!missing.isEmpty()) {
            findings.add("ras-missing-ranks", Severity.ERROR, "RAS is missing " + missing.size() + " rank(s) or process(es): "
                            + String.join("; ", missing.subList(0, Math.min(8, missing.size()))),
                    "a stopped or hung process does not answer RAS: look at that rank's node and process (a dead process is "
                            + "declared DEAD after 60 s)", firstLine, firstText);
        }
        if (!behind.isEmpty()) {
            findings.add("ras-ranks-behind", Severity.WARN, "ranks below their communicator's highest launch count: " + String.join("; ", behind),
                    "one report differs normally (counts are launches); poll again: the same ranks at the same count while "
                            + "the others move on is a lagging rank, nothing moving is a hang (railyard nccl-watch decides both)",
                    firstLine, firstText);
        }
    }

    /** The groups below their operation's highest count, named where the report names them. */
    private static List<String> behind(RasReport report) {
        return report.behind().stream().limit(8).map(b -> (b.group().named().isEmpty() ? b.group().size() + " ranks"
                : b.group().named().stream().map(r -> "rank " + r.rank() + (r.host() == null ? "" : " on " + r.host())).collect(Collectors.joining(", ")))
                + " at " + b.operation() + " " + b.group().count() + " (others " + b.highest() + ")").toList();
    }

    private static String who(HangDetector.Suspect s) {
        return new RasReport.Rank(s.rank(), s.host(), s.pid(), s.cudaDev()).describe();
    }
}
