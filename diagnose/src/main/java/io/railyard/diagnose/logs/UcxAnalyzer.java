package io.railyard.diagnose.logs;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * UCX's log (Open MPI's pml ucx, UCX-based libraries and benchmarks): transport errors of its RC, DC and UD transports
 * (a retry count exceeded, other completion errors), endpoint timeouts, queues it could not create and the locked-memory
 * limit; and {@code ucx_info -v}: UCX's version and what it was built with.
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

    /** {@code ucx_info -v}: {@code # Library version: 1.16.0} (1.14+), {@code # UCT version=1.9.0 revision 1d0a420} before. */
    private static final Pattern INFO_VERSION = Pattern.compile("^\\s*#\\s*(?:Library version:|UCT version=)\\s*(\\d+\\.\\d+(?:\\.\\d+)?)");
    private static final Pattern CONFIGURED = Pattern.compile("^\\s*#\\s*[Cc]onfigured with:\\s*(.*)$");

    private final Findings findings;
    private long hits;
    private String infoVersion;
    private String configured;

    UcxAnalyzer(Findings findings) {
        this.findings = findings;
    }

    @Override
    public Interest interest() {
        return Interest.words(List.of("UC", ".c:", "Fatal:", "Library version:", "onfigured with:"));
    }

    @Override
    public void accept(Line line) {
        if (infoLine(line.text())) {
            hits++;
            return;
        }
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

    /** A line of {@code ucx_info -v}: the version, or the configure flags. */
    private boolean infoLine(String text) {
        Matcher version = INFO_VERSION.matcher(text);
        if (version.find()) {
            infoVersion = infoVersion == null ? version.group(1) : infoVersion;
            return true;
        }
        Matcher flags = CONFIGURED.matcher(text);
        if (flags.find() && (infoVersion != null || flags.group(1).contains("--"))) {
            configured = configured == null ? flags.group(1).strip() : configured;
            return true;
        }
        return false;
    }

    @Override
    public void finish(LogReport.Builder report) {
        if (infoVersion == null && configured == null) {
            return; // every other finding is made line by line
        }
        String flags = configured == null ? "" : " " + configured + " ";
        List<String> without = java.util.stream.Stream.of("cuda", "verbs", "rdmacm").filter(part -> flags.contains(" --without-" + part + " ")
                || flags.contains(" --with-" + part + "=no ")).toList();
        List<String> with = java.util.stream.Stream.of("cuda", "verbs", "rdmacm", "gdrcopy", "mlx5-dv")
                .filter(part -> flags.contains(" --with-" + part) && !without.contains(part)).toList();
        String version = "UCX " + (infoVersion == null ? "(version not in the paste)" : infoVersion);
        if (without.contains("verbs") || without.contains("cuda")) {
            findings.conclude("ucx-built-without", Severity.WARN, version + " was built without " + String.join(" and ", without)
                    + ": it cannot " + (without.contains("verbs") ? "use RDMA" : "") + (without.containsAll(List.of("verbs", "cuda")) ? " or " : "")
                    + (without.contains("cuda") ? "move GPU memory" : ""),
                    "use a UCX built --with-verbs and --with-cuda (the HPC-X or the distribution's UCX with its ib and cuda modules), or"
                            + " point LD_LIBRARY_PATH at one; ucx_info -d lists the transports it has");
        } else {
            findings.conclude("ucx-build", Severity.INFO, version + (configured == null ? "" : with.isEmpty()
                    ? ", configured without naming CUDA or verbs (its defaults: each is used where found at build time)"
                    : ", built with " + String.join(", ", with)), "ucx_info -d lists the transports and devices it found on this node");
        }
    }
}
