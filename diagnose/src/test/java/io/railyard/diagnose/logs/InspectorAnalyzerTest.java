package io.railyard.diagnose.logs;

import static io.railyard.diagnose.logs.Analyzed.file;
import static io.railyard.diagnose.logs.Analyzed.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * analyze on NCCL Inspector's JSON lines: the README's real record, and longer runs written in its format (v4.0) with
 * a rank slowed on purpose.
 */
class InspectorAnalyzerTest {

    /** A record of one collective on one rank, as Inspector writes it. */
    static String record(int rank, int ranks, String host, String collective, long bytes, double busBw, int sn) {
        return String.format(Locale.ROOT, "{\"header\":{\"id\":\"0x7f8c496ae9f661\",\"rank\":%d,\"n_ranks\":%d,\"nnodes\":2,\"comm_name\":\"DP Group 0\"},"
                + "\"metadata\":{\"inspector_output_format_version\":\"v4.0\",\"git_rev\":\"\",\"rec_mechanism\":\"profiler_plugin\","
                + "\"dump_timestamp_us\":%d,\"hostname\":\"%s\",\"pid\":%d},\"coll_perf\":{\"coll\":\"%s\",\"coll_sn\":%d,"
                + "\"coll_msg_size_bytes\":%d,\"coll_exec_time_us\":%d,\"coll_timing_source\":\"kernel_gpu\",\"coll_algobw_gbs\":%.6f,"
                + "\"coll_busbw_gbs\":%.6f}}", rank, ranks, 1748030377748202L + sn * 1000L, host, 1639453 + rank, collective, sn, bytes,
                (long) (bytes / (busBw * 1e3)), busBw * 0.57, busBw);
    }

    @Test
    void theReadmesRecordIsOneRankOfOneCollective() {
        LogReport report = file("inspector/readme-record-v4.0.log");

        assertThat(report.kind()).isEqualTo("nccl-inspector");
        assertThat(report.inspector().ranks()).isEqualTo(8);
        assertThat(report.inspector().collectives()).singleElement().satisfies(c -> {
            assertThat(c.collective()).isEqualTo("AllReduce");
            assertThat(c.size()).isEqualTo("16 GiB");
            assertThat(c.busBandwidthGBps()).isEqualTo(485.1);
        });
        assertThat(report.findings()).isEmpty();
    }

    @Test
    void recordsPrettyPrintedAsDocumentationShowsThemAreReadAsTheirOneLineForm() throws Exception {
        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        String readme = java.nio.file.Files.readString(Analyzed.TESTDATA.resolve("inspector/readme-record-v4.0.log")).strip();
        String pretty = json.writerWithDefaultPrettyPrinter().writeValueAsString(json.readTree(readme)); // "{" then "  "header" : {"
        String slow = json.writerWithDefaultPrettyPrinter().writeValueAsString(json.readTree(readme.replace("\"rank\":2", "\"rank\":5")
                .replace("485.119099", "240.5"))).replaceFirst("\\{\\s*", "{ "); // "{ "header" : {" on one line
        String paste = "Here is what inspector wrote for rank 2 and rank 5:\n\n" + pretty + "\n" + slow + "\n" + "{\nnot a record\n}\n";

        LogReport report = text(paste);

        assertThat(report.kind()).isEqualTo("nccl-inspector");
        assertThat(report.inspector().records()).isEqualTo(2);
        assertThat(report.inspector().collectives()).singleElement().satisfies(c -> {
            assertThat(c.collective()).isEqualTo("AllReduce");
            assertThat(c.size()).isEqualTo("16 GiB");
            assertThat(c.ranks()).isEqualTo(2);
        });
        assertThat(report.inspector().slowRanks()).extracting(InspectorSummary.SlowRank::rank).containsExactly(5);
    }

    @Test
    void aRankSlowedToSixtyPercentIsNamedWithItsHostAndACutLastLineIsNoError() {
        StringBuilder run = new StringBuilder();
        for (int sn = 0; sn < 50; sn++) {
            for (int rank = 0; rank < 8; rank++) {
                String host = rank < 4 ? "gpu-node-a" : "gpu-node-b";
                double busBw = (rank == 5 ? 0.6 : 1.0) * (380 + (sn * 7 + rank * 3) % 20); // jitter of a real run
                run.append(record(rank, 8, host, "AllReduce", 1L << 30, busBw, sn)).append('\n');
                run.append(record(rank, 8, host, "AllGather", 16L << 20, busBw / 2, sn)).append('\n');
            }
        }
        String cut = record(3, 8, "gpu-node-a", "AllReduce", 1L << 30, 390, 51);
        run.append(cut, 0, cut.length() / 2).append('\n');

        LogReport report = text(run.toString());

        assertThat(report.kind()).isEqualTo("nccl-inspector");
        assertThat(report.inspector().records()).isEqualTo(800);
        assertThat(report.inspector().collectives()).extracting(c -> c.collective() + " " + c.size())
                .containsExactlyInAnyOrder("AllReduce 1 GiB", "AllGather 16 MiB");
        assertThat(report.inspector().slowRanks()).extracting(InspectorSummary.SlowRank::rank).containsOnly(5);
        Finding slow = Analyzed.finding(report, "inspector-slow-rank");
        assertThat(slow.summary()).startsWith("rank 5 on gpu-node-b runs ").contains("% of the job's median");
        assertThat(report.findings()).extracting(Finding::id).containsExactly("inspector-slow-rank");
    }
}
