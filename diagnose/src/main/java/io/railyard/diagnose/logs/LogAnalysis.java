package io.railyard.diagnose.logs;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.zip.GZIPInputStream;

/** Reads one input (plain or gzip) once, in constant memory, and reports its kind, facts and findings. */
public final class LogAnalysis {
    private static final String NCCL_INFO = "NCCL INFO ";
    private static final String NCCL_WARN = "NCCL WARN";
    /** NCCL 2.4's WARN pasted without its "NCCL" word: "include/socket.h:344 WARN Socket creation failed". */
    private static final java.util.regex.Pattern NCCL_SOURCE_WARN = java.util.regex.Pattern.compile(
            "(?:^|\\s)(?:include|src|transport|misc|graph|plugin)/[\\w/]*\\.(?:h|cc|cu|c|cpp):\\d+ WARN ");

    private LogAnalysis() {}

    /**
     * @param lineRateGbps the line rate of the links under test: one NIC for perftest, all of a node's RDMA NICs for
     *     nccl-tests; empty when unknown
     */
    public static LogReport analyze(String file, InputStream input, OptionalDouble lineRateGbps) throws IOException {
        Findings findings = new Findings(file);
        Map<String, Analyzer> analyzers = analyzers(findings);
        NcclLogAnalyzer nccl = (NcclLogAnalyzer) analyzers.get("nccl-log");
        PortToolAnalyzer portTools = (PortToolAnalyzer) analyzers.get("ibstat");
        PortStateAnalyzer portState = (PortStateAnalyzer) analyzers.get("port-state");
        RdmaStackAnalyzer stack = (RdmaStackAnalyzer) analyzers.get("rdma-stack");
        InputStream text = decompressed(input);
        boolean binary = startsBinary(text);
        if (!binary && RasAnalyzer.startsWithReport(text)) {
            // only where the input's head holds a RAS report: the other inputs pay nothing for it (bench/analyze-vs-grep.sh)
            analyzers.put("nccl-ras", new RasAnalyzer(findings));
        }
        if (!binary && InspectorAnalyzer.startsWithRecords(text)) { // the same for NCCL Inspector's files
            analyzers.put("nccl-inspector", new InspectorAnalyzer(findings));
        }
        List<Analyzer> all = List.copyOf(analyzers.values());
        Interests interests = new Interests(all);
        long lines = LineReader.forEachLine(text, line -> {
            int info = line.indexOf(NCCL_INFO, 0);
            if (info >= 0) {
                nccl.acceptInfo(line, info + NCCL_INFO.length()); // NCCL's own lines, most of a large log: no other tool prints them
                return;
            }
            long explained = findings.lineFindings();
            if (line.contains(NCCL_WARN) || line.contains(" WARN ") && NCCL_SOURCE_WARN.matcher(line.text()).find()) {
                nccl.acceptWarn(line);
            } else {
                interests.offer(line);
            }
            if (findings.lineFindings() == explained) {
                findings.unexplained(line);
            }
        });
        LogReport.Builder report = new LogReport.Builder(file, findings, lineRateGbps);
        all.forEach(analyzer -> analyzer.finish(report));
        report.tool = portState.tool();
        analyzers.entrySet().stream()
                .filter(e -> e.getValue().hits() > 0)
                .max((a, b) -> Long.compare(a.getValue().hits(), b.getValue().hits()))
                .ifPresent(e -> report.kind = e.getValue() == portTools ? portTools.kind() : e.getValue() == stack ? stack.kind() : e.getKey());
        if ("unknown".equals(report.kind) && (lines == 0 || binary)) {
            report.kind = lines == 0 ? "empty" : "binary"; // said as such: "unknown" would read as a log with nothing wrong
        }
        if (analyzers.get("nccl-tests").hits() > 0 && ("nccl-log".equals(report.kind) || stack.hits() > 0)) {
            // nccl-tests run with NCCL_DEBUG=INFO, or under mpirun with its warnings: the NCCL lines still fill the nccl facts
            report.kind = "nccl-tests";
        }
        return report.build();
    }

    /** The analyzers of any input, by the kind each recognizes, in the order each line is handed to them. */
    static Map<String, Analyzer> analyzers(Findings findings) {
        Map<String, Analyzer> analyzers = new LinkedHashMap<>();
        analyzers.put("nccl-log", new NcclLogAnalyzer(findings));
        analyzers.put("nccl-tests", new NcclTestsAnalyzer(findings));
        analyzers.put("perftest", new PerftestAnalyzer(findings));
        analyzers.put("iperf3", new Iperf3Analyzer(findings));
        analyzers.put("allreduce-bench", new AllreduceBenchAnalyzer());
        analyzers.put("ibstat", new PortToolAnalyzer(findings));
        analyzers.put("ibqueryerrors", new IbErrorsAnalyzer(findings));
        analyzers.put("pytorch", new PytorchAnalyzer(findings));
        analyzers.put("device-plugin", new DevicePluginLogAnalyzer(findings));
        analyzers.put("sriov-device-plugin", new SriovDevicePluginAnalyzer(findings));
        analyzers.put("kernel", new KernelLogAnalyzer(findings));
        analyzers.put("ucx", new UcxAnalyzer(findings));
        analyzers.put("port-state", new PortStateAnalyzer(findings));
        analyzers.put("ibv_pingpong", new PingpongAnalyzer(findings));
        analyzers.put("rdma-devices", new RdmaDeviceAccessAnalyzer(findings));
        analyzers.put("rdma-stack", new RdmaStackAnalyzer(findings));
        return analyzers;
    }

    /**
     * A file, read through plain system calls into the reader's buffer. Not mapped: copying a mapped 1 GB log costs a page
     * fault every 4 KiB, five times a read's time here (bench/analyze-vs-grep.sh).
     */
    public static LogReport analyze(Path file, OptionalDouble lineRateGbps) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return analyze(file.toString(), in, lineRateGbps);
        }
    }

    /** A NUL byte in the first 8 KiB: no log or tool output has one, a binary file nearly always does. */
    private static boolean startsBinary(InputStream text) throws IOException {
        byte[] head = new byte[8192];
        text.mark(head.length);
        int read = text.readNBytes(head, 0, head.length);
        text.reset();
        for (int i = 0; i < read; i++) {
            if (head[i] == 0) {
                return true;
            }
        }
        return false;
    }

    private static InputStream decompressed(InputStream input) throws IOException {
        BufferedInputStream buffered = new BufferedInputStream(input, 1 << 16);
        buffered.mark(2);
        int first = buffered.read();
        int second = buffered.read();
        buffered.reset();
        return first == 0x1f && second == 0x8b ? new BufferedInputStream(new GZIPInputStream(buffered, 1 << 16), 1 << 16) : buffered;
    }
}
