package io.railyard.diagnose.ras;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.diagnose.logs.Finding;
import io.railyard.diagnose.logs.LogAnalysis;
import io.railyard.diagnose.logs.LogReport;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/** analyze on pasted RAS reports: the real ones in testdata/ras, and one inside other output. */
class RasAnalysisTest {

    private static LogReport analyze(String name, String text) throws IOException {
        return LogAnalysis.analyze(name, new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), OptionalDouble.empty());
    }

    @Test
    void eachRealReportIsItsOwnKindWithItsFacts() throws IOException {
        LogReport healthy = analyze("healthy", RasReportsTest.read("ras-text-healthy-during-timeout-2.26.2-01.txt"));
        LogReport dead = analyze("dead", RasReportsTest.read("ras-text-dead-process-01.txt"));
        LogReport json = analyze("json", RasReportsTest.read("ras-json-missing-comma-2.28.9-01.json"));
        LogReport straggler = analyze("straggler", RasReportsTest.read("ras-text-straggler-2.26.2-01.txt"));

        assertThat(healthy.kind()).isEqualTo("nccl-ras");
        assertThat(healthy.ras().ranks()).isEqualTo(256);
        assertThat(healthy.ras().status()).isEqualTo("healthy");
        assertThat(healthy.findings()).isEmpty();
        assertThat(dead.findings()).extracting(Finding::id).contains("ras-dead-process");
        assertThat(dead.findings().getFirst().summary())
                .isEqualTo("RAS considers 1 NCCL process(es) dead: rank 21 on 172.16.64.213 (process 3487984, GPU 5)");
        assertThat(analyze("2.24", RasReportsTest.read("ras-text-dead-missing-rank-2.24-01.txt")).findings().getFirst().summary())
                .isEqualTo("RAS considers 1 NCCL process(es) dead: rank 21 on 172.16.64.213 (process 3487984, GPU 5)");
        assertThat(json.ras().ncclVersion()).isEqualTo("2.28.9");
        assertThat(json.findings()).extracting(Finding::id).containsExactly("ras-missing-ranks");
        assertThat(straggler.findings()).singleElement().satisfies(f -> {
            assertThat(f.id()).isEqualTo("ras-ranks-behind");
            assertThat(f.summary()).endsWith("30 ranks at AllGather 640 (others 641)").doesNotContain("rank 12");
        });
    }

    @Test
    void aReportPastedAmidOtherLinesIsFound() throws IOException {
        String paste = "[rank0]:[E1204 10:00:01.123] Watchdog caught collective operation timeout\n"
                + "$ ncclras\n"
                + RasReportsTest.read("ras-text-straggler-2.26.2-01.txt")
                + "thanks for any help!\n";

        LogReport report = analyze("paste", paste);

        assertThat(report.kind()).isEqualTo("nccl-ras");
        assertThat(report.findings()).extracting(Finding::id).contains("ras-ranks-behind");
    }
}
