package io.railyard.diagnose.logs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * torchrun's and the elastic agent's own reports of a failed run, as people paste them: the {@code ChildFailedError}
 * summary with its table of failures ({@code [1]:} then {@code host}, {@code rank : 1 (local_rank: 1)},
 * {@code exitcode : 1 (pid: 78971)}; the first observed failure under {@code Root Cause}), the agent's
 * {@code failed (exitcode: -9) local_rank: 3 (pid: 407727)} line, and its worker-status events
 * ({@code {"name": "torchelastic.worker.status.FAILED", ...}}, one JSON object a line, often cut).
 */
final class TorchrunLines {
    static final String CHILD_FAILED = "ChildFailedError";
    static final String AGENT_FAILED = "failed (exitcode: ";
    static final String WORKER_STATUS = "torchelastic.worker.status.";
    private static final int MAX_FAILURES = 4096;
    private static final Pattern ENTRY = Pattern.compile("^\\s*\\[(\\d+)\\]:\\s*$");
    private static final Pattern FIELD = Pattern.compile("^\\s*(time|host|rank|exitcode|error_file|traceback)\\s*:\\s*(.*)$");
    private static final Pattern RANK = Pattern.compile("^(\\d+)(?: \\(local_rank: (\\d+)\\))?");
    private static final Pattern EXIT = Pattern.compile("^(-?\\d+)(?: \\(pid: (\\d+)\\))?");
    private static final Pattern AGENT = Pattern.compile("failed \\(exitcode: (-?\\d+)\\) local_rank: (\\d+) \\(pid: (\\d+)\\)");
    private static final Pattern STATUS_NAME = Pattern.compile("\"name\": \"torchelastic\\.worker\\.status\\.(\\w+)\"");
    private static final Pattern GLOBAL_RANK = Pattern.compile("\"global_rank\": (\\d+)");
    private static final Pattern HOSTNAME = Pattern.compile("\"hostname\": \"([^\"]*)\"");
    private static final Pattern WORKER_ID = Pattern.compile("\"worker_id\": \"(\\d+)\"");
    private static final Map<Integer, String> SIGNALS = Map.of(1, "SIGHUP", 2, "SIGINT", 4, "SIGILL", 6, "SIGABRT", 7, "SIGBUS",
            9, "SIGKILL", 11, "SIGSEGV", 13, "SIGPIPE", 15, "SIGTERM");

    private final List<TorchrunSummary.Failure> failures = new ArrayList<>();
    /** The table's entry being read: its fields, and whether it is the root cause. */
    private Map<String, String> entry;
    private boolean inTable;
    private boolean rootCause;

    /** Whether a line belongs to a table being read: its field lines hold none of the analyzer's words. */
    boolean inTable() {
        return inTable;
    }

    /** Reads a line; whether it was one of torchrun's. */
    boolean accept(Line line) {
        String text = line.text();
        if (line.contains(CHILD_FAILED) && !line.contains("raise ")) {
            inTable = true;
            return true;
        }
        if (line.contains(AGENT_FAILED)) {
            Matcher m = AGENT.matcher(text);
            if (m.find()) {
                int exit = Integer.parseInt(m.group(1));
                add(new TorchrunSummary.Failure(null, Integer.parseInt(m.group(2)), null, exit, signal(exit), Long.parseLong(m.group(3)), false));
                return true;
            }
        }
        if (line.contains(WORKER_STATUS)) {
            return workerStatus(text);
        }
        return inTable && tableLine(text);
    }

    private boolean tableLine(String text) {
        String stripped = text.strip();
        if (stripped.startsWith("Root Cause")) {
            close();
            rootCause = true;
            return true;
        }
        if (stripped.startsWith("Failures:") || stripped.matches("[=*-]{10,}") || stripped.endsWith(" FAILED")) {
            close();
            if (stripped.startsWith("=") && !failures.isEmpty()) {
                inTable = false; // the table's last rule
            }
            return true;
        }
        Matcher m = ENTRY.matcher(text);
        if (m.find()) {
            close();
            entry = new java.util.HashMap<>();
            return true;
        }
        m = FIELD.matcher(text);
        if (entry != null && m.find()) {
            entry.put(m.group(1), m.group(2).strip());
            return true;
        }
        return false;
    }

    /** The entry read so far becomes a failure. */
    private void close() {
        if (entry == null) {
            return;
        }
        Matcher rank = RANK.matcher(entry.getOrDefault("rank", ""));
        Matcher exit = EXIT.matcher(entry.getOrDefault("exitcode", ""));
        Integer code = exit.find() ? Integer.valueOf(exit.group(1)) : null;
        boolean ranked = rank.find();
        add(new TorchrunSummary.Failure(ranked ? Integer.valueOf(rank.group(1)) : null,
                ranked && rank.group(2) != null ? Integer.valueOf(rank.group(2)) : null, entry.get("host"), code,
                code == null ? null : signal(code), code != null && exit.group(2) != null ? Long.valueOf(exit.group(2)) : null, rootCause));
        entry = null;
        rootCause = false;
    }

    /** A worker's status event: a failed worker, by its global rank and host. */
    private boolean workerStatus(String text) {
        Matcher name = STATUS_NAME.matcher(text);
        if (!name.find()) {
            return false;
        }
        if (name.group(1).equals("FAILED") && text.contains("\"source\": \"WORKER\"")) {
            Matcher rank = GLOBAL_RANK.matcher(text);
            Matcher host = HOSTNAME.matcher(text);
            Matcher worker = WORKER_ID.matcher(text);
            add(new TorchrunSummary.Failure(rank.find() ? Integer.valueOf(rank.group(1)) : null, null, host.find() ? host.group(1) : null,
                    null, null, worker.find() ? Long.valueOf(worker.group(1)) : null, false));
        }
        return true;
    }

    private void add(TorchrunSummary.Failure failure) {
        if (failures.size() < MAX_FAILURES && !failures.contains(failure)) {
            failures.add(failure);
        }
    }

    /** The failures read, the first observed first; the table's last entry closed. */
    List<TorchrunSummary.Failure> failures() {
        close();
        List<TorchrunSummary.Failure> ordered = new ArrayList<>(failures.stream().filter(TorchrunSummary.Failure::rootCause).toList());
        failures.stream().filter(failure -> !failure.rootCause()).forEach(ordered::add);
        return ordered;
    }

    /** A negative exit code's signal, as torchrun reports a worker killed by one. */
    private static String signal(int exitCode) {
        return exitCode < 0 ? SIGNALS.getOrDefault(-exitCode, "signal " + -exitCode) : null;
    }
}
