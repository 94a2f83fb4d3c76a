package io.railyard.cli;

import io.railyard.diagnose.logs.Evidence;
import io.railyard.diagnose.logs.Finding;
import io.railyard.diagnose.logs.Iperf3Summary;
import io.railyard.diagnose.logs.LogAnalysis;
import io.railyard.diagnose.logs.LogReport;
import io.railyard.diagnose.logs.PortFacts;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code railyard analyze}: whether NCCL really used RDMA, and if not why, from logs and tool output. */
@Command(
        name = "analyze",
        mixinStandardHelpOptions = true,
        description = "Read NCCL debug logs, nccl-tests, perftest, ibstat, ibv_devinfo, ibqueryerrors/perfquery, PyTorch "
                + "watchdog and device plugin logs (plain or gzip); say what they show and what to do.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:no error finding", "1:an error finding", "2:usage error"})
final class AnalyzeCommand implements Callable<Integer> {
    enum Output { text, json }

    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "Files to read; - reads standard input.")
    List<String> files;

    @Option(names = {"-o", "--output"}, defaultValue = "text", description = "Output format: ${COMPLETION-CANDIDATES}.")
    Output output;

    @Option(names = "--nic-gbps", description = "Line rate in Gb/s of the links under test: one NIC for perftest, all of a node's RDMA NICs for nccl-tests.")
    Double nicGbps;

    @Override
    public Integer call() throws IOException {
        return analyze(files, output, nicGbps, spec.commandLine().getOut(), spec.commandLine().getErr());
    }

    /** {@code railyard analyze FILE...}: arguments that are all files (or - for standard input), no option. */
    static boolean onlyFiles(String... args) {
        if (args.length < 2 || !args[0].equals("analyze")) {
            return false;
        }
        for (String arg : List.of(args).subList(1, args.length)) {
            if (arg.isEmpty() || !arg.equals("-") && (arg.startsWith("-") || arg.startsWith("@"))) { // an option, an @argument file
                return false;
            }
        }
        return true;
    }

    static int analyze(List<String> files, Output output, Double nicGbps, PrintWriter out, PrintWriter err) throws IOException {
        if (nicGbps != null && nicGbps <= 0) {
            throw new Railyard.UsageException("--nic-gbps " + nicGbps + " must be positive");
        }
        List<LogReport> reports = new ArrayList<>();
        for (String file : files) {
            reports.add(analyze(file, nicGbps));
        }
        if (output == Output.json) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("reports", reports.stream().map(AnalyzeCommand::json).toList());
            out.println(Json.write(json));
        } else {
            reports.forEach(report -> out.print(text(report)));
        }
        out.flush();
        if (reports.stream().allMatch(AnalyzeCommand::unread)) {
            err.println("analyze: no input held anything to analyze (see above): give NCCL logs or RDMA tool output");
            return Railyard.USAGE;
        }
        return reports.stream().anyMatch(LogReport::hasErrors) ? 1 : 0;
    }

    private static LogReport analyze(String file, Double nicGbps) throws IOException {
        OptionalDouble lineRate = nicGbps == null ? OptionalDouble.empty() : OptionalDouble.of(nicGbps);
        if (file.equals("-")) {
            return LogAnalysis.analyze("-", System.in, lineRate);
        }
        Path path = Path.of(file);
        try {
            if (Files.isDirectory(path)) { // NCCL Inspector writes a file per process: the directory is one input
                return LogAnalysis.analyze(file, directory(path), lineRate);
            }
            return LogAnalysis.analyze(path, lineRate);
        } catch (IOException e) {
            throw Railyard.UsageException.unreadable(file, e);
        }
    }

    /** The regular files of a directory, in name order, as one stream. */
    private static java.io.InputStream directory(Path dir) throws IOException {
        List<Path> files;
        try (java.util.stream.Stream<Path> listed = Files.list(dir)) {
            files = listed.filter(Files::isRegularFile).sorted().toList();
        }
        List<java.io.InputStream> streams = new ArrayList<>();
        for (Path file : files) {
            streams.add(Files.newInputStream(file));
            streams.add(new java.io.ByteArrayInputStream(new byte[] {'\n'})); // a file's cut last line stays its own
        }
        return new java.io.SequenceInputStream(java.util.Collections.enumeration(streams));
    }

    /** Nothing in it was a format analyze reads, and it gave no finding. */
    private static boolean unread(LogReport report) {
        return report.findings().isEmpty() && List.of("empty", "binary", "unknown").contains(report.kind());
    }

    private static Map<String, Object> json(LogReport report) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("file", report.file());
        json.put("kind", report.kind());
        if (report.tool() != null) {
            json.put("tool", report.tool());
        }
        json.put("nccl", report.nccl());
        json.put("bandwidth", report.bandwidth());
        if (report.iperf3() != null) {
            json.put("iperf3", report.iperf3());
        }
        json.put("ports", report.ports());
        json.put("ras", report.ras());
        json.put("inspector", report.inspector());
        if (report.torchrun() != null) {
            json.put("torchrun", report.torchrun());
        }
        json.put("findings", report.findings().stream().map(f -> {
            Map<String, Object> finding = new LinkedHashMap<>();
            finding.put("id", f.id());
            finding.put("severity", f.severity().json());
            finding.put("summary", f.summary());
            finding.put("evidence", f.evidence());
            finding.put("occurrences", f.occurrences());
            finding.put("remedy", f.remedy());
            return finding;
        }).toList());
        return json;
    }

    /** Where no line names the network, the line it was inferred from. */
    private static String inferred(LogReport report) {
        return report.findings().stream().filter(f -> f.id().equals("network-inferred") && !f.evidence().isEmpty()).findFirst()
                .map(f -> " (inferred from line " + f.evidence().getFirst().line() + ")").orElse("");
    }

    private static String text(LogReport report) {
        StringBuilder text = new StringBuilder();
        text.append(report.file()).append(": ").append(report.kind()).append(report.tool() == null ? "" : " (" + report.tool() + ")").append('\n');
        if (report.nccl() != null) {
            var nccl = report.nccl();
            text.append("  NCCL ").append(nccl.version() == null ? "(version not logged)" : nccl.version())
                    .append(", network ").append(nccl.transport()).append(nccl.plugin() == null ? "" : " (" + nccl.plugin() + ")")
                    .append(inferred(report))
                    .append(nccl.fallback() ? ", FELL BACK to sockets" : "")
                    .append(", GPUDirect RDMA ").append(nccl.gdr() == null ? "not logged" : nccl.gdr() ? "on" : "off")
                    .append(nccl.hcas().isEmpty() ? "" : ", HCAs " + String.join(" ", nccl.hcas()))
                    .append(nccl.bootstrapInterface() == null ? "" : ", bootstrap " + nccl.bootstrapInterface()).append('\n');
        }
        if (report.ras() != null) {
            var ras = report.ras();
            text.append("  RAS: NCCL ").append(ras.ncclVersion() == null ? "(version not in the paste)" : ras.ncclVersion())
                    .append(ras.ranks() > 0 ? ", " + ras.ranks() + " ranks" : "")
                    .append(ras.nodes() > 0 ? ", " + ras.nodes() + " node(s) named" : "")
                    .append(ras.communicators() > 0 ? ", " + ras.communicators() + " communicator(s) detailed" : "")
                    .append(": ").append(ras.status()).append('\n');
        }
        if (report.inspector() != null) {
            var inspector = report.inspector();
            text.append("  NCCL Inspector: ").append(inspector.records()).append(" records, ").append(inspector.ranks()).append(" ranks, ")
                    .append(inspector.communicators()).append(" communicator(s)\n");
            inspector.collectives().stream().limit(12).forEach(c -> text.append("    ").append(c.collective()).append(' ').append(c.size())
                    .append(": median ").append(c.busBandwidthGBps()).append(" GB/s bus bandwidth over ").append(c.ranks()).append(" ranks\n"));
        }
        if (report.torchrun() != null) {
            text.append("  torchrun: ").append(report.torchrun().failures().size()).append(" failed worker(s)\n");
            report.torchrun().failures().stream().limit(12).forEach(f -> text.append("    ").append(f.rootCause() ? "first: " : "")
                    .append(f.rank() != null ? "rank " + f.rank() : "local rank " + f.localRank())
                    .append(f.rank() != null && f.localRank() != null ? " (local " + f.localRank() + ")" : "")
                    .append(f.host() == null ? "" : " on " + f.host())
                    .append(f.signal() != null ? ", " + f.signal() + " (" + f.exitCode() + ")" : f.exitCode() != null ? ", exit " + f.exitCode() : "")
                    .append(f.pid() == null ? "" : ", pid " + f.pid()).append('\n'));
            if (report.torchrun().ncclError() != null) {
                text.append("    NCCL error: ").append(report.torchrun().ncclError()).append('\n');
            }
        }
        if (report.bandwidth() != null) {
            var bw = report.bandwidth();
            text.append("  ").append(bw.rowCount()).append(" rows");
            if (bw.avgBusGBps() != null) {
                text.append(", average bus bandwidth ").append(bw.avgBusGBps()).append(" GB/s");
            }
            if (bw.peakBusGBps() != null) {
                text.append(", peak bus bandwidth ").append(bw.peakBusGBps()).append(" GB/s");
            }
            if (bw.peakGbps() != null) {
                text.append(String.format(", peak %.2f Gb/s, average %.2f Gb/s", bw.peakGbps(), bw.averageGbps()));
            }
            if (bw.lineRatePercent() != null) {
                text.append(", ").append(bw.lineRatePercent()).append("% of line rate");
            }
            if (bw.cpuPercent() != null) {
                text.append(", CPU ").append(bw.cpuPercent()).append("% of the node");
            }
            if (bw.typicalLatencyUs() != null) {
                text.append(", typical latency ").append(bw.typicalLatencyUs()).append(" µs");
            }
            text.append('\n');
        }
        if (report.iperf3() != null) {
            text.append("  ").append(iperf3(report.iperf3())).append('\n');
        }
        report.ports().forEach(port -> text.append("  port ").append(port.port()).append(": ").append(describe(port)).append('\n'));
        for (Finding finding : report.findings()) {
            text.append("  ").append(switch (finding.severity()) {
                case ERROR -> "❌";
                case WARN -> "⚠️ ";
                case INFO -> "ℹ️ ";
            }).append(' ').append(finding.id()).append(": ").append(finding.summary())
                    .append(finding.occurrences() > 1 ? " (" + finding.occurrences() + " lines)" : "").append('\n');
            for (Evidence evidence : finding.evidence()) {
                text.append("       line ").append(evidence.line()).append(": ").append(evidence.text()).append('\n');
            }
            if (!finding.remedy().isEmpty()) {
                text.append("       -> ").append(finding.remedy()).append('\n');
            }
        }
        if (report.findings().isEmpty()) {
            text.append(switch (report.kind()) {
                case "empty" -> "  the input is empty: nothing was analyzed\n";
                case "binary" -> "  not text (a binary file?): nothing was analyzed; give the log or tool output itself\n";
                case "unknown" -> "  no line of a format analyze reads (NCCL debug log, nccl-tests, perftest, iperf3, ibstat, ibv_devinfo,"
                        + " ibqueryerrors, PyTorch, device plugin, SR-IOV device plugin, mlx5 kernel log, NCCL RAS report) and no line"
                        + " that reads as an error: nothing was analyzed\n";
                default -> "  nothing to report\n";
            });
        }
        return text.toString();
    }

    private static String iperf3(Iperf3Summary tcp) {
        List<String> parts = new ArrayList<>();
        if (tcp.sentGbps() != null) {
            parts.add(String.format("sent %.2f Gb/s", tcp.sentGbps()));
        }
        if (tcp.receivedGbps() != null) {
            parts.add(String.format("received %.2f Gb/s", tcp.receivedGbps()));
        }
        if (tcp.retransmits() != null) {
            parts.add(tcp.retransmits() + " retransmits");
        }
        if (tcp.streams() != null) {
            parts.add(tcp.streams() + " stream(s)");
        }
        if (tcp.localCpuPercent() != null) {
            parts.add("CPU " + tcp.localCpuPercent() + "% here" + (tcp.remoteCpuPercent() == null ? "" : ", " + tcp.remoteCpuPercent()
                    + "% at the other end") + " (of one CPU)");
        }
        return "iperf3" + (tcp.sender() == null ? "" : tcp.sender() ? " (this end sent)" : " (this end received)") + ": "
                + String.join(", ", parts);
    }

    /** State/physical state, link layer, MTU, LIDs and counters: whichever the tool printed. */
    private static String describe(PortFacts port) {
        List<String> parts = new ArrayList<>();
        if (port.state() != null) {
            parts.add(port.state() + (port.physicalState() == null ? "" : "/" + port.physicalState()));
        }
        if (port.linkLayer() != null) {
            parts.add(port.linkLayer());
        }
        if (port.activeMtu() != null) {
            parts.add("MTU " + port.activeMtu());
        }
        if (port.lid() != null) {
            parts.add("LID " + port.lid());
        }
        if (port.smLid() != null) {
            parts.add("SM LID " + port.smLid());
        }
        if (!port.errors().isEmpty()) {
            parts.add("counters " + port.errors());
        }
        return String.join(", ", parts);
    }
}
