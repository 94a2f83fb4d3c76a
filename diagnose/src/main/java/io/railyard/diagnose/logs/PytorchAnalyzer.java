package io.railyard.diagnose.logs;

import java.util.List;
import java.util.BitSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PyTorch's NCCL watchdog (collectives that timed out, which operation, and on which ranks), the NCCL error a PyTorch
 * exception names, and torchrun's and its elastic agent's reports of the workers that failed ({@link TorchrunLines}).
 */
final class PytorchAnalyzer implements Analyzer {
    private static final String PROCESS_GROUP = "ProcessGroupNCCL";
    private static final String WATCHDOG = "Watchdog caught collective operation timeout";
    private static final String REMOTE_ERROR = "ncclRemoteError";
    private static final String REMOTE_EXITED = "remote process exited or there was a network error";
    private static final String BACKEND_ERROR = "DistBackendError";
    private static final Pattern WORK = Pattern.compile("SeqNum=(\\d+), OpType=(\\w+).*?Timeout\\(ms\\)=(\\d+)\\) ran for (\\d+) milliseconds");
    private static final Pattern RANK = Pattern.compile("\\[Rank (\\d+)\\]");
    /** PyTorch's own words for an NCCL call that failed: {@code NCCL error in: ...cpp:825, unhandled system error, NCCL version 2.7.8}. */
    private static final String NCCL_ERROR = "NCCL error";
    private static final String NCCL_ERROR_2 = "NCCL Error ";
    private static final Pattern NCCL_MESSAGE = Pattern.compile("(NCCL [Ee]rror.*?)(?: \\(run with NCCL_DEBUG=INFO for details\\))?$");

    private final Findings findings;
    private long hits;
    private final BitSet ranks = new BitSet();
    private String operation;
    private final TorchrunLines torchrun = new TorchrunLines();
    private String ncclError;

    PytorchAnalyzer(Findings findings) {
        this.findings = findings;
    }

    @Override
    public Interest interest() {
        return new Interest(List.of(REMOTE_ERROR, REMOTE_EXITED, PROCESS_GROUP, WATCHDOG, BACKEND_ERROR, NCCL_ERROR, NCCL_ERROR_2,
                TorchrunLines.CHILD_FAILED, TorchrunLines.AGENT_FAILED, TorchrunLines.WORKER_STATUS), line -> torchrun.inTable());
    }

    @Override
    public void accept(Line line) {
        if (torchrun.accept(line)) {
            hits++;
            return;
        }
        if ((line.contains(NCCL_ERROR) || line.contains(NCCL_ERROR_2)) && !line.contains(" WARN ")) {
            Matcher message = NCCL_MESSAGE.matcher(line.text());
            if (message.find() && ncclError == null) {
                ncclError = message.group(1).strip();
            }
            if (!line.contains(REMOTE_ERROR) && !line.contains(REMOTE_EXITED) && !line.contains(PROCESS_GROUP) && !line.contains(BACKEND_ERROR)) {
                hits++;
                return;
            }
        }
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

    /** What a user does next about the first failure: its own log, and what its exit says. */
    private static String remedy(TorchrunSummary.Failure first) {
        String log = "read " + first.who() + "'s own log (the traceback above the summary; torchrun's --log-dir or @record names it)";
        if ("SIGKILL".equals(first.signal())) {
            return log + "; SIGKILL is most often the kernel's OOM killer or the container's memory limit: dmesg, kubectl describe pod";
        }
        if ("SIGSEGV".equals(first.signal()) || "SIGABRT".equals(first.signal()) || "SIGBUS".equals(first.signal())) {
            return log + "; a crash in native code: an NCCL WARN or an XID in dmesg just before it names the part";
        }
        return log + "; the other ranks usually fail after it, waiting on the collective it left";
    }

    @Override
    public long hits() {
        return hits;
    }

    @Override
    public void finish(LogReport.Builder report) {
        List<TorchrunSummary.Failure> failures = torchrun.failures();
        if (!failures.isEmpty()) {
            report.torchrun = new TorchrunSummary(failures, ncclError);
            TorchrunSummary.Failure first = failures.getFirst();
            String how = first.how();
            findings.conclude("torchrun-failed", Severity.ERROR, failures.size() + (failures.size() == 1 ? " worker" : " workers") + " failed; "
                    + (first.rootCause() ? "first " : "") + first.who() + (first.host() == null ? "" : " on " + first.host())
                    + (how == null ? "" : " (" + how + ")") + (failures.size() > 1 ? "; also " + failures.stream().skip(1).limit(8)
                    .map(TorchrunSummary.Failure::who).collect(java.util.stream.Collectors.joining(", ")) : "")
                    + (ncclError == null ? "" : "; under it: " + ncclError),
                    remedy(first));
        }
        if (!ranks.isEmpty()) {
            findings.conclude("watchdog-ranks", Severity.INFO, "ranks that reported the timeout: " + ranks.cardinality()
                    + " (" + ranks.toString().replaceAll("[{}]", "") + ")", "");
        }
    }
}
