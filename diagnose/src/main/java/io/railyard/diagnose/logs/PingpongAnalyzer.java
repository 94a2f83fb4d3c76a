package io.railyard.diagnose.logs;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The verbs examples' ping-pong tests ({@code ibv_rc_pingpong}, {@code ibv_ud_pingpong}, ...): their addresses, the
 * rate they print, and their failures. Told apart from perftest by their own line formats.
 */
final class PingpongAnalyzer implements Analyzer {
    private static final Line.Words WORDS = Line.Words.of(List.of("address:", " seconds = ", "Fail", "Couldn't", "parse WC",
            "not found"));
    /** {@code  local address:  LID 0x0001, QPN 0x00004a, PSN 0x7f3e2a, GID ::}: perftest's has no commas. */
    private static final Pattern ADDRESS = Pattern.compile("(?:local|remote) address:\\s+LID 0x[0-9a-fA-F]+, QPN");
    private static final Pattern RATE = Pattern.compile("\\d+ (?:bytes|iters) in [\\d.]+ seconds = [\\d.]+ (?:Mbit/sec|usec/iter)");
    /** {@code Failed status transport retry counter exceeded (12) for wr_id 2}. */
    private static final Pattern FAILED_STATUS = Pattern.compile("Failed status (.+?) \\((\\d+)\\) for wr_id");
    private static final Pattern FAILURE = Pattern.compile("Couldn't (?:connect to|get local LID|get port info|post receive|post send|create QP"
            + "|modify QP to \\w+|read/write remote address)|Failed to modify QP to (?:RTR|RTS)|parse WC failed|IB device \\S+ not found");

    private final Findings findings;
    private long hits;

    PingpongAnalyzer(Findings findings) {
        this.findings = findings;
    }

    @Override
    public Interest interest() {
        return Interest.words(WORDS.words());
    }

    @Override
    public void accept(Line line) {
        if (!line.containsAny(WORDS)) {
            return;
        }
        String text = line.text();
        if (ADDRESS.matcher(text).find() || RATE.matcher(text).find()) {
            hits++;
            return;
        }
        Matcher status = FAILED_STATUS.matcher(text);
        if (status.find()) {
            hits++;
            boolean retries = status.group(2).equals("12");
            findings.add(retries ? "retry-exceeded" : "pingpong-failed", Severity.ERROR, "the ping-pong test's completions failed: "
                    + status.group(1) + " (" + status.group(2) + ")" + (retries ? ", the peer did not acknowledge" : ""),
                    "check that both ports are ACTIVE, the GID index (-g) on RoCE, and that the two NICs reach each other", line);
            return;
        }
        Matcher failure = FAILURE.matcher(text);
        if (failure.find() && hits > 0) {
            hits++;
            findings.add("pingpong-failed", Severity.ERROR, "the ping-pong test failed: " + failure.group(),
                    "run it with the device (-d), port (-i) and on RoCE the GID index (-g) of an ACTIVE port on both ends; a failed"
                            + " connect means the other end is not listening or not reachable over IP", line);
        }
    }

    @Override
    public long hits() {
        return hits;
    }

    @Override
    public void finish(LogReport.Builder report) {
        // every finding is made line by line
    }
}
