package io.railyard.diagnose.logs;

import java.util.List;
import java.util.BitSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** PyTorch's NCCL watchdog: collectives that timed out, which operation, and on which ranks. */
final class PytorchAnalyzer implements Analyzer {
    private static final String PROCESS_GROUP = "ProcessGroupNCCL";
    private static final String WATCHDOG = "Watchdog caught collective operation timeout";
    private static final String REMOTE_ERROR = "ncclRemoteError";
    private static final String REMOTE_EXITED = "remote process exited or there was a network error";
    private static final String BACKEND_ERROR = "DistBackendError";
    private static final Pattern WORK = Pattern.compile("SeqNum=(\\d+), OpType=(\\w+).*?Timeout\\(ms\\)=(\\d+)\\) ran for (\\d+) milliseconds");
    private static final Pattern RANK = Pattern.compile("\\[Rank (\\d+)\\]");

    private final Findings findings;
    private long hits;
    private final BitSet ranks = new BitSet();
    private String operation;

    PytorchAnalyzer(Findings findings) {
        this.findings = findings;
    }

    @Override
    public Interest interest() {
        return Interest.words(List.of(REMOTE_ERROR, REMOTE_EXITED, PROCESS_GROUP, WATCHDOG, BACKEND_ERROR));
    }

    @Override
    public void accept(Line line) {
        if (line.contains(REMOTE_ERROR) || line.contains(REMOTE_EXITED)) {
            hits++;
            findings.add("nccl-remote-error", Severity.ERROR, "NCCL failed with ncclRemoteError: a remote process exited or the network failed",
                    "find the first rank that failed (its log, an OOM kill, an XID in dmesg); the \"Last error\" line under it names "
                            + "the call that saw the peer go (a reset connection, an RDMA completion error)", line);
            return;
        }
        if (!line.contains(PROCESS_GROUP) && !line.contains(WATCHDOG)) {
            if (line.contains(BACKEND_ERROR)) {
                hits++;
            }
            return;
        }
        hits++;
        if (!line.contains(WATCHDOG)) {
            return;
        }
        String text = line.text();
        Matcher rank = RANK.matcher(text);
        if (rank.find() && rank.group(1).length() < 7) {
            ranks.set(Integer.parseInt(rank.group(1)));
        }
        Matcher work = WORK.matcher(text);
        if (work.find() && operation == null) {
            operation = work.group(2) + " #" + work.group(1) + " ran " + work.group(4) + " ms against a " + work.group(3) + " ms timeout";
        }
        findings.add("watchdog-timeout", Severity.ERROR, "NCCL collective timed out"
                        + (operation == null ? "" : ": " + operation),
                "a rank stopped participating: find the first rank that failed or hung (its log, an earlier NCCL WARN, an XID "
                        + "in dmesg); with RDMA look for completion errors; raise the timeout only for known slow steps", line);
    }

    @Override
    public long hits() {
        return hits;
    }

    @Override
    public void finish(LogReport.Builder report) {
        if (!ranks.isEmpty()) {
            findings.conclude("watchdog-ranks", Severity.INFO, "ranks that reported the timeout: " + ranks.cardinality()
                    + " (" + ranks.toString().replaceAll("[{}]", "") + ")", "");
        }
    }
}
