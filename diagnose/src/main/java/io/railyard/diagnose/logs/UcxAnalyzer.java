package io.railyard.diagnose.logs;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * UCX's log (Open MPI's pml ucx, UCX-based libraries and benchmarks): transport errors of its RC, DC and UD transports
 * (a retry count exceeded, other completion errors), endpoint timeouts, queues it could not create and the locked-memory
 * limit.
 */
final class UcxAnalyzer implements Analyzer {
    /**
     * {@code [host:pid:thread]} or {@code [1561011694.1] [host:pid:thread]}, then UCX's source file and line; or, pasted
     * without that prefix, one of UCX's transports' own source files.
     */
    private static final Pattern UCX_LINE = Pattern.compile("\\[[\\w.-]+:\\s*\\d+\\s*:\\s*\\w+(?::\\d+)?\\]\\s+\\w+\\.(?:c|cc|h|inl):\\d+\\s"
            + "|^\\s*(?:ib_mlx5_log|ib_mlx5|ib_iface|ib_md|ib_device|ud_ep|ud_iface|ud_verbs|rc_iface|rc_mlx5\\w*|rc_verbs\\w*|dc_mlx5\\w*"
            + "|ucp_\\w+|uct_\\w+|ucs_\\w+|wireup\\w*)\\.(?:c|cc|h|inl):\\d+\\s");
    private static final Pattern DEVICE = Pattern.compile("\\bon (\\w+:\\d+)(?:/(IB|RoCE))?|UCX\\s+ERROR (\\w+): ");
    /**
     * A completion error: ib_mlx5_log.c's "Local protection on mlx5_0:1/IB (synd 0x4 ...)" or "Remote access error on ...",
     * the verbs transports' "send completion with error: local protection error".
     */
    private static final Pattern COMPLETION_ERROR = Pattern.compile("(\\w[\\w ]*?) on \\w+:\\d+/(?:IB|RoCE) \\(synd"
            + "|(?i)completion with error: ([a-z][a-z ]*[a-z])");
    /** "ibv_create_cq(cqe=4096) failed", "failed to create qp", "failed to create UD QP", "mlx5dv_devx_obj_create(QP) failed". */
    private static final Pattern CREATE_FAILED = Pattern.compile("(?i)create_?\\w*\\(?(?:qp|cq|srq)\\b.*\\bfail|fail\\w* to create (?:\\w+ )?(?:qp|cq|srq)\\b");
    private static final String REMOTE_REMEDY = "a peer stopped answering: find the first failure among the other ranks (a crash, a node or"
            + " port down); check that both ports are ACTIVE, on RoCE the GID index and the routes between the NICs, on InfiniBand the"
            + " subnet manager's routes";

    private final Findings findings;
    private long hits;

    UcxAnalyzer(Findings findings) {
        this.findings = findings;
    }

    @Override
    public Interest interest() {
        return Interest.words(List.of("UC", ".c:", "Fatal:"));
    }

    @Override
    public void accept(Line line) {
        boolean named = line.contains("UC") && (line.contains("UCX") || line.contains("UCP worker"));
        if (!named && !line.contains(".c:") && !line.contains("Fatal:")) {
            return;
        }
        String text = line.text();
        if (!named && !UCX_LINE.matcher(text).find()) {
            return;
        }
        hits++;
        if (text.contains("Cannot allocate memory") && (text.contains("create_cq") || text.contains("reg_mr") || text.contains("locked memory"))) {
            findings.add("ucx-memlock", Severity.ERROR, "UCX could not " + (text.contains("reg_mr") ? "register memory" : "create a completion queue")
                            + on(text) + ": Cannot allocate memory, the locked-memory limit (ulimit -l)",
                    "raise memlock to unlimited (limits.conf, the container runtime's ulimit, LimitMEMLOCK=infinity for a service);"
                            + " in a pod, give the container IPC_LOCK", line);
        } else if (text.contains("retry count exceeded") || text.contains("Retry count exceeded")) {
            findings.add("retry-exceeded", Severity.ERROR, "UCX: transport retry count exceeded" + on(text)
                    + ": the peer did not acknowledge", REMOTE_REMEDY, line);
        } else if (text.contains("Endpoint timeout") || text.contains("unhandled timeout error")
                || text.contains("timeout of ") && text.contains(" sec")) {
            findings.add("ucx-endpoint-timeout", Severity.ERROR, "UCX: an endpoint timed out: its peer stopped answering", REMOTE_REMEDY
                    + "; raising UCX_UD_TIMEOUT or UCX_RC_TIMEOUT only hides it", line);
        } else if (CREATE_FAILED.matcher(text).find()) {
            findings.add("ucx-resource-failed", Severity.ERROR, "UCX could not create a verbs queue" + on(text),
                    "check the device's limits (ibv_devinfo -v: max_qp, max_cq), the locked-memory limit, and that no other process"
                            + " holds the device's resources (rdma resource show)", line);
        } else {
            Matcher completion = COMPLETION_ERROR.matcher(text);
            if (completion.find()) {
                findings.add("ucx-completion-error", Severity.ERROR, "UCX: " + (completion.group(1) != null ? completion.group(1)
                                : "completion with error: " + completion.group(2)) + on(text),
                        "a remote access or protection error means a peer's memory registration or queue went away (a crashed or"
                                + " restarted peer) or the two ends disagree: find the first failure among the ranks", line);
            }
        }
    }

    private static String on(String text) {
        Matcher device = DEVICE.matcher(text);
        if (!device.find()) {
            return "";
        }
        return " on " + (device.group(1) != null ? device.group(1) + (device.group(2) == null ? "" : "/" + device.group(2)) : device.group(3));
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
