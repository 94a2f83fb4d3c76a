package io.railyard.diagnose.logs;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.zip.GZIPInputStream;

/** Reads one input (plain or gzip) once, in constant memory, and reports its kind, facts and findings. */
public final class LogAnalysis {
    private static final String NCCL_INFO = "NCCL INFO ";
    private static final String NCCL_WARN = "NCCL WARN";

    private LogAnalysis() {}

    /**
     * @param lineRateGbps the line rate of the links under test: one NIC for perftest, all of a node's RDMA NICs for
     *     nccl-tests; empty when unknown
     */
    public static LogReport analyze(String file, InputStream input, OptionalDouble lineRateGbps) throws IOException {
        Findings findings = new Findings(file);
        NcclLogAnalyzer nccl = new NcclLogAnalyzer(findings);
        PortToolAnalyzer portTools = new PortToolAnalyzer(findings);
        Map<String, Analyzer> analyzers = new LinkedHashMap<>();
        analyzers.put("nccl-log", nccl);
        analyzers.put("nccl-tests", new NcclTestsAnalyzer(findings));
        analyzers.put("perftest", new PerftestAnalyzer(findings));
        analyzers.put("ibstat", portTools);
        analyzers.put("ibqueryerrors", new IbErrorsAnalyzer(findings));
        analyzers.put("pytorch", new PytorchAnalyzer(findings));
        analyzers.put("device-plugin", new DevicePluginLogAnalyzer(findings));
        List<Analyzer> all = List.copyOf(analyzers.values());
        LineReader.forEachLine(decompressed(input), line -> {
            int info = line.indexOf(NCCL_INFO, 0);
            if (info >= 0) {
                nccl.acceptInfo(line, info + NCCL_INFO.length()); // NCCL's own lines, most of a large log: no other tool prints them
                return;
            }
            if (line.contains(NCCL_WARN)) {
                nccl.accept(line);
                return;
            }
            for (Analyzer analyzer : all) {
                analyzer.accept(line);
            }
        });
        LogReport.Builder report = new LogReport.Builder(file, findings, lineRateGbps);
        all.forEach(analyzer -> analyzer.finish(report));
        analyzers.entrySet().stream()
                .filter(e -> e.getValue().hits() > 0)
                .max((a, b) -> Long.compare(a.getValue().hits(), b.getValue().hits()))
                .ifPresent(e -> report.kind = e.getValue() == portTools ? portTools.kind() : e.getKey());
        return report.build();
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
