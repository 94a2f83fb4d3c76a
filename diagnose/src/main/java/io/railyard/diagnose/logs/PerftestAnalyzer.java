package io.railyard.diagnose.logs;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** perftest output (ib_write_bw, ib_read_bw, ib_send_bw and the latency tests): its settings, results and errors. */
final class PerftestAnalyzer implements Analyzer {
    private static final Pattern BW_HEADER = Pattern.compile("BW peak\\[(MB|MiB|Gb)/sec\\]");
    private static final Pattern NUMBERS = Pattern.compile("^\\s*(\\d+)\\s+(\\d+)\\s+([\\d.]+)\\s+([\\d.]+)");
    private static final Pattern SETTING = Pattern.compile("^\\s*(Mtu|Link type|GID index|Device)\\s*:\\s*(\\S+)");
    private static final Pattern FAILED_STATUS = Pattern.compile("Failed status[- ]?(?:\\w+ \\()?(\\d+)");
    private static final Pattern FAILED_RTR = Pattern.compile("Failed to modify QP( \\d+)? to RTR");
    /** The GID perftest printed under an address, in its decimal bytes ({@code GID: 00:00:...:255:255:12:12:12:16}): all zero is none. */
    private static final Pattern ZERO_GID = Pattern.compile("^\\s*GID: (?:0?0:){15}0?0\\s*$");
    private static final long LARGE_MESSAGE = 64 * 1024;
    /** A logging library's {@code file.cpp:385]} or {@code file.c:12:}: perftest prints none. */
    private static final Pattern SOURCE_LINE = Pattern.compile("\\w\\.(?:c|cc|cpp|cu|h|go|py|rs):\\d+");
    private static final String CONNECT_REMEDY = "on RoCE give the RoCE v2 GID index (-x, railyard doctor's gid check) on both ends; check "
            + "that both ports are active with the same MTU and, on InfiniBand, that a subnet manager gave them LIDs";
    /** Something on every line of perftest's that is not a result row. */
    private static final List<String> MARKERS = Stream.of(" : ", " Test", "#bytes", "with error", "Failed status",
            "IB devices", "state is Down", "Requested mtu", "address: LID", "to RTR", "Unable to Connect the HCA", "detect devices",
            "RoCE device", "get context", " MR", " mr", "CUDA", "Waiting for client", "create QP", "IB resources", "GID: ").toList();
    private static final Line.Words MARKER_WORDS = Line.Words.of(MARKERS);
    /** perftest's own lines when it runs on GPU memory (--use_cuda): before its header, the only sign of it in a cut paste. */
    private static final List<String> CUDA_LINES = List.of("initializing CUDA", "Listing all CUDA devices", "Picking device No.",
            "creating CUDA Ctx", "making it the current CUDA Ctx", "cuMemAlloc() of a", "allocated GPU buffer address",
            "Perftest doesn't supports CUDA");

    private final Findings findings;
    private long hits;
    private String unit;
    private boolean latency;
    /** The header names CPU_Util[%] after the message rate (--cpu_util). */
    private boolean cpuColumn;
    private Double cpuPercent;
    private Double typicalLatencyUs;
    private String linkType;
    private Integer mtu;
    private double peakGbps;
    private double averageGbps;
    private long largestSize = -1;
    private long rowCount;
    private final List<List<Double>> rows = new ArrayList<>();
    private long completionErrorLine = -1;
    private String completionErrorText;
    private static final String COMPLETION_REMEDY =
            "check the GID index (-x), that the two NICs reach each other, and the ports' state on both ends";

    PerftestAnalyzer(Findings findings) {
        this.findings = findings;
    }

    @Override
    public Interest interest() {
        return new Interest(MARKERS, Interest::row);
    }

    @Override
    public void accept(Line line) {
        boolean row = Interest.row(line);
        if (!row && !line.containsAny(MARKER_WORDS)) {
            return;
        }
        String text = line.text();
        if (text.contains("for wr_id") || text.contains(", QPN")) {
            return; // the verbs examples' ping-pong tests (PingpongAnalyzer)
        }
        if (text.contains("Waiting for client to connect")) {
            hits++;
            return;
        }
        if (text.contains(" BW Test") || text.contains(" Lat Test") || text.contains("local address: LID")
                || text.contains("remote address: LID") || text.contains("#bytes")) {
            hits++;
            Matcher header = BW_HEADER.matcher(text);
            if (header.find()) {
                unit = header.group(1);
                cpuColumn = text.contains("CPU_Util");
            } else if (text.contains("t_min[usec]") || text.contains("t_typical")) {
                latency = true;
            }
            return;
        }
        if (CUDA_LINES.stream().anyMatch(text::contains)) {
            hits++;
            return;
        }
        if (text.strip().startsWith("GID: ")) { // perftest's own line under an address; other tools print GIDs inside theirs
            hits++;
            if (ZERO_GID.matcher(text).find()) {
                findings.add("perftest-zero-gid", Severity.ERROR, "perftest used an all-zero GID: the port has no RoCE GID at the index given"
                                + " (or by default), so the two ends cannot address each other",
                        "give the port's netdev an IP address, then pass the index of its RoCE v2 GID (-x; show_gids or railyard doctor's gid"
                                + " check lists them), the same kind of GID on both ends", line);
            }
            return;
        }
        Matcher setting = SETTING.matcher(text);
        if (setting.find()) {
            hits++;
            switch (setting.group(1)) {
                case "Mtu" -> mtu = parseInt(setting.group(2).replace("[B]", ""));
                case "Link type" -> linkType = setting.group(2);
                default -> { }
            }
            return;
        }
        errors(line, text);
        if ((unit == null && !latency) || !row) {
            return;
        }
        Matcher numbers = NUMBERS.matcher(text);
        if (numbers.find()) {
            hits++;
            rowCount++;
            long size = Long.parseLong(numbers.group(1));
            double a = Double.parseDouble(numbers.group(3));
            double b = Double.parseDouble(numbers.group(4));
            String[] fields = text.strip().split("\\s+");
            if (!latency) {
                peakGbps = Math.max(peakGbps, toGbps(a));
                if (size >= largestSize) {
                    largestSize = size;
                    averageGbps = toGbps(b);
                    cpuPercent = cpuColumn && fields.length >= 6 ? parseDouble(fields[5]) : null;
                }
            } else if (typicalLatencyUs == null && fields.length >= 5) {
                typicalLatencyUs = parseDouble(fields[4]); // #bytes #iterations t_min t_max t_typical ...: the first, smallest size
            }
            if (rows.size() < LogReport.MAX_ROWS) {
                rows.add(List.of((double) size, Double.parseDouble(numbers.group(2)), a, b));
            }
        }
    }

    private void errors(Line line, String text) {
        Matcher status = FAILED_STATUS.matcher(text);
        if (status.find()) {
            hits++;
            String code = status.group(1);
            findings.add("perftest-completion-error", Severity.ERROR, "perftest completions failed with status " + code
                            + (code.equals("12") ? " (RETRY_EXC_ERR: no acknowledgement)" : ""), COMPLETION_REMEDY, line);
        } else if (text.contains("Completion with error")) {
            hits++;
            if (completionErrorLine < 0) {
                completionErrorLine = line.number();
                completionErrorText = text;
            }
        } else if (text.contains("Unable to Connect the HCA's through the link") || FAILED_RTR.matcher(text).find()) {
            if (SOURCE_LINE.matcher(text).find()) { // another program's log (a KV-cache transfer engine, NVSHMEM): same cause, not perftest
                findings.add("qp-connect-failed", Severity.ERROR, "a queue pair could not be brought up (modify QP to RTR failed)",
                        CONNECT_REMEDY, line);
                return;
            }
            hits++;
            findings.add("perftest-connect-failed", Severity.ERROR, "perftest could not connect the queue pairs (modify QP to RTR failed)",
                    CONNECT_REMEDY, line);
        } else if (text.contains("Unable to create QP") || text.contains("Failed to create QP") || text.contains("Couldn't create IB resources")) {
            hits++;
            findings.add("perftest-create-qp-failed", Severity.ERROR, "perftest could not create its queue pairs",
                    "the device refused the queue pair's attributes: on Intel irdma lower the inline size (-I 64), on AWS EFA use its"
                            + " SRD or UD connection type (-c SRD, -c UD) and the GID index (-x 0), in a pod give the container IPC_LOCK;"
                            + " ibv_devinfo -v shows the device's limits", line);
        } else if (text.contains("state is Down")) {
            hits++;
            findings.add("perftest-port-down", Severity.ERROR, "perftest found the port down",
                    "bring the port up (railyard doctor's link check says why it is down)", line);
        } else if (text.contains("Did not detect devices") || text.contains("Unable to find the Infiniband/RoCE device")
                || text.contains("Couldn't get context for the device")) {
            hits++; // perftest's own words (RdmaDeviceAccessAnalyzer makes the finding)
        } else if (text.contains("Couldn't allocate MR") || text.contains("failed to create mr") || text.contains("Failed to create MR")) {
            hits++;
            findings.add("perftest-mr-failed", Severity.ERROR, "perftest could not register its buffer (Couldn't allocate MR)",
                    "with --use_cuda the NIC cannot reach GPU memory: load nvidia_peermem (or use --use_cuda_dmabuf with the open GPU "
                            + "kernel modules); else raise the locked-memory limit (ulimit -l unlimited, IPC_LOCK in a pod) and check "
                            + "that the device supports the buffer's size (-a sweeps up to 8 MB)", line);
        } else if (text.contains("Requested mtu is higher than active mtu")) {
            hits++;
            findings.add("perftest-mtu", Severity.WARN, "the requested MTU is higher than the port's active MTU",
                    "raise the netdev MTU (9000) so the RoCE MTU reaches 4096", line);
        }
    }

    private double toGbps(double value) {
        return switch (unit == null ? "MB" : unit) {
            case "Gb" -> value;
            case "MiB" -> value * 1024 * 1024 * 8 / 1e9;
            default -> value * 1e6 * 8 / 1e9;
        };
    }

    private static Double parseDouble(String text) {
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Integer parseInt(String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    @Override
    public long hits() {
        return hits;
    }

    @Override
    public void finish(LogReport.Builder report) {
        if (hits == 0) {
            return;
        }
        if (completionErrorLine >= 0 && !findings.has("perftest-completion-error")) {
            findings.add("perftest-completion-error", Severity.ERROR, "perftest completions failed", COMPLETION_REMEDY,
                    completionErrorLine, completionErrorText);
        }
        if ("Ethernet".equals(linkType) && mtu != null && mtu < 4096) {
            findings.conclude("roce-mtu-below-4096", Severity.WARN, "RoCE MTU " + mtu + " in this test: below 4096",
                    "set the netdev MTU to 9000 on both hosts and every switch port");
        }
        Double percent = null;
        if (!latency && largestSize >= LARGE_MESSAGE && report.lineRateGbps.isPresent()) {
            double lineRate = report.lineRateGbps.getAsDouble();
            percent = Math.round(peakGbps / lineRate * 1000) / 10.0;
            if (percent < 70) {
                findings.conclude("bandwidth-below-line-rate", Severity.WARN,
                        String.format("perftest peak %.1f Gb/s is %.0f%% of the %.0f Gb/s line rate", peakGbps, percent, lineRate),
                        "check the MTU, the PCIe slot's width and speed (lspci -vv), the NUMA node the test ran on, and congestion");
            }
        }
        if (rowCount > 0) {
            report.bandwidth = new Bandwidth(null, null, latency ? null : peakGbps, latency ? null : averageGbps, percent, cpuPercent,
                    typicalLatencyUs, rowCount, rows);
        }
    }
}
