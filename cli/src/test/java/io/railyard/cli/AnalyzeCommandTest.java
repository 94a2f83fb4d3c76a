package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AnalyzeCommandTest {
    private static final Path LOGS = Path.of(System.getProperty("railyard.repo", "..")).resolve("testdata/logs");

    private static String log(String name) {
        return LOGS.resolve(name).toString();
    }

    @Test
    void fallbackExitsOneWithEvidenceAndRemedy() {
        CommandRun run = CommandRun.of("analyze", log("nccl-socket-fallback-driver-stopped-01.log"));

        assertThat(run.exitCode()).isOne();
        assertThat(run.out())
                .contains("nccl-log")
                .contains("network socket, FELL BACK to sockets")
                .contains("❌ socket-fallback: NCCL silently fell back from RDMA to TCP sockets")
                .contains("       line 5: oneflow-15:3907318:3907604 [1] NCCL INFO NET/IB : No device found.");
    }

    @Test
    void gzipFileIsReadLikeThePlainOne(@TempDir Path dir) throws Exception {
        Path gzip = dir.resolve("nccl.log.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gzip))) {
            Files.copy(LOGS.resolve("nccl-socket-fallback-driver-stopped-01.log"), out);
        }

        CommandRun run = CommandRun.of("analyze", gzip.toString());

        assertThat(run.exitCode()).isOne();
        assertThat(run.out()).contains("nccl-log").contains("network socket, FELL BACK to sockets")
                .contains("       line 5: oneflow-15:3907318:3907604 [1] NCCL INFO NET/IB : No device found.");
    }

    @Test
    void aDirectoryOfInspectorFilesIsOneJobsRecords(@TempDir Path dir) throws Exception {
        String record = Files.readString(HelmTool.REPO.resolve("testdata/inspector/readme-record-v4.0.log")).strip();
        Files.writeString(dir.resolve("gpu-node-a-pid1639453.log"), record + "\n" + record.replace("\"rank\":2", "\"rank\":3") + "\n");
        Files.writeString(dir.resolve("gpu-node-b-pid1639460.log"), record.replace("\"rank\":2", "\"rank\":6")
                .replace("485.119099", "240.5")); // its last line cut by the writer: no newline

        CommandRun run = CommandRun.of("analyze", dir.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).startsWith(dir + ": nccl-inspector\n").contains("  NCCL Inspector: 3 records, 8 ranks, 1 communicator(s)\n",
                "    AllReduce 16 GiB: median 485.1 GB/s bus bandwidth over 3 ranks\n", "inspector-slow-rank: rank 6 on example-hostname runs AllReduce");
    }

    @Test
    void healthyLogExitsZero() {
        CommandRun run = CommandRun.of("analyze", log("nccl-ib-gdr-ok-aks-01.log"), log("ibstat-ndr-active-01.txt"));

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("rdma-verified").contains("port mlx5_5:1: Active/LinkUp");
    }

    @Test
    void jsonHasTheDocumentedShape() throws Exception {
        CommandRun run = CommandRun.of("analyze", "-o", "json", "--nic-gbps", "800",
                log("nccl-roce-gdr-disabled-01.log"), log("nccl-tests-allreduce-ib-near-peak-01.txt"));

        JsonNode reports = new ObjectMapper().readTree(run.out()).path("reports");
        assertThat(reports).hasSize(2);
        JsonNode nccl = reports.get(0).path("nccl");
        assertThat(reports.get(0).path("kind").asText()).isEqualTo("nccl-log");
        assertThat(nccl.path("transport").asText()).isEqualTo("roce");
        assertThat(nccl.path("plugin").isNull()).isTrue();
        assertThat(nccl.path("fallback").asBoolean()).isFalse();
        assertThat(nccl.path("gdr").asBoolean()).isFalse();
        assertThat(nccl.path("hcas").toString()).isEqualTo("[\"mlx5_0:1\",\"mlx5_1:1\"]");
        assertThat(reports.get(0).path("bandwidth").isNull()).isTrue();
        JsonNode finding = reports.get(0).path("findings").get(0);
        assertThat(finding.path("id").asText()).isEqualTo("gdr-disabled");
        assertThat(finding.path("severity").asText()).isEqualTo("warn");
        assertThat(finding.path("evidence").get(0).path("line").asInt()).isEqualTo(5);
        assertThat(finding.path("remedy").asText()).isNotBlank();
        assertThat(reports.get(1).path("nccl").isNull()).isTrue();
        assertThat(reports.get(1).path("bandwidth").path("avgBusGBps").asDouble()).isEqualTo(84.8558);
        assertThat(run.exitCode()).isZero();
    }

    @Test
    void anEmptyBinaryOrUnknownInputIsSaidSoNotReportedHealthy(@TempDir Path dir) throws Exception {
        Path empty = Files.writeString(dir.resolve("empty.log"), "");
        Path binary = Files.write(dir.resolve("core"), new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, '\n', 0, 3, 0});
        Path shopping = Files.writeString(dir.resolve("notes.txt"), "eggs\nmilk\nbread\n");

        CommandRun run = CommandRun.of("analyze", empty.toString(), binary.toString(), shopping.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.out()).doesNotContain("nothing to report")
                .contains(empty + ": empty\n  the input is empty: nothing was analyzed")
                .contains(binary + ": binary\n  not text (a binary file?): nothing was analyzed")
                .contains(shopping + ": unknown\n  no line of a format analyze reads");
        assertThat(run.err()).startsWith("analyze: no input held anything to analyze").hasLineCount(1);
        assertThat(CommandRun.of("analyze", shopping.toString(), LOGS.resolve("nccl-ib-gdr-ok-aks-01.log").toString()).exitCode())
                .as("one input that was analyzed is enough").isZero();
    }

    @Test
    void anUnknownToolsErrorLinesAreShownWithTheirLineNumbers() throws Exception {
        CommandRun run = CommandRun.of("analyze", LOGS.resolve("corpus/mooncake-handshake-rtr-timed-out-166-01.log").toString());

        assertThat(run.out()).contains("mooncake-handshake-rtr-timed-out-166-01.log: unknown\n")
                .contains("qp-connect-failed: a queue pair could not be brought up (modify QP to RTR failed) (2 lines)")
                .contains("unexplained-error: a line that reads as an error, and no rule explains it")
                .contains("line 6: W0331 10:52:07.700984 297905 transfer_engine_bench.cpp:410] Invalid flag: buffer size is smaller");
        assertThat(run.exitCode()).as("an error finding").isEqualTo(1);
    }

    @Test
    void utf8InTheEvidenceIsShownAsWritten(@TempDir Path dir) throws Exception {
        Path log = Files.writeString(dir.resolve("nœud.log"), "nœud-1:12:12 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2 "
                + "with status=12 opcode=0 len=0 vendor err 129 (Recv) hca mlx5_0 — réessayé\n");

        CommandRun run = CommandRun.of("analyze", log.toString());

        assertThat(run.out()).contains("line 1: nœud-1:12:12 [0] NCCL WARN").contains("— réessayé");
    }

    @Test
    void missingFileIsAUsageError() {
        CommandRun run = CommandRun.of("analyze", "nope.log");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("analyze: nope.log: no such file\n");
    }

    @Test
    void filesAloneAreReadAsWithOptions() {
        // `analyze FILE...` runs without picocli's model; an option takes the path through it: both say the same
        for (String[] files : List.of(new String[] {log("nccl-socket-fallback-driver-stopped-01.log"), log("nccl-ib-gdr-ok-aks-01.log")},
                new String[] {log("nccl-ib-gdr-ok-aks-01.log")}, new String[] {"nope.log"}, new String[] {log("nccl-ib-gdr-ok-aks-01.log"), "nope.log"})) {
            CommandRun alone = CommandRun.of(Stream.concat(Stream.of("analyze"), Stream.of(files)).toArray(String[]::new));
            CommandRun withOption = CommandRun.of(Stream.concat(Stream.of("analyze", "-o", "text"), Stream.of(files)).toArray(String[]::new));

            assertThat(alone).as(String.join(" ", files)).isEqualTo(withOption);
        }
        assertThat(AnalyzeCommand.onlyFiles("analyze", "a.log", "-")).isTrue();
        assertThat(AnalyzeCommand.onlyFiles("analyze", "a.log", "--nic-gbps=400")).isFalse();
        assertThat(AnalyzeCommand.onlyFiles("analyze", "@args.txt")).isFalse(); // picocli reads its arguments from the file
        assertThat(AnalyzeCommand.onlyFiles("analyze", "")).isFalse();
        assertThat(AnalyzeCommand.onlyFiles("analyze")).isFalse();
    }

    @Test
    void noFileIsAUsageError() {
        CommandRun run = CommandRun.of("analyze");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("FILE").hasLineCount(1);
    }
}
