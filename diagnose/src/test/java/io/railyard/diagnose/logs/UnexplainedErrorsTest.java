package io.railyard.diagnose.logs;

import static io.railyard.diagnose.logs.Analyzed.file;
import static io.railyard.diagnose.logs.Analyzed.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A line that reads as an error is never lost: a rule explains it, or it is a finding of its own. */
class UnexplainedErrorsTest {
    private static final String CORPUS = CorpusTest.DIR;

    private static List<Finding> unexplained(LogReport report) {
        return report.findings().stream().filter(f -> f.id().equals(UnexplainedErrors.ID)).toList();
    }

    @Test
    void anErrorLineNoRuleKnowsIsQuotedWithItsLineNumber() {
        LogReport report = file(CORPUS + "deepep-nvshmem-erdma-not-mlx5-ibgda-init-cut-01.txt");

        assertThat(report.kind()).isEqualTo("unknown");
        assertThat(unexplained(report)).extracting(f -> f.evidence().getFirst().line()).containsExactly(3L);
        assertThat(unexplained(report).getFirst().evidence().getFirst().text()).isEqualTo("WARN: device erdma_0 is not enumerated as an mlx5 device. Skipping...");
        assertThat(unexplained(report).getFirst().severity()).isEqualTo(Severity.WARN);
    }

    @Test
    void aLineARuleExplainsIsNotRepeatedAsUnexplained() {
        LogReport report = file(CORPUS + "nccl-broken-pipe-proxy-connect-aws-01.log");

        assertThat(report.findings()).extracting(Finding::id).contains("connection-lost");
        // "Failed to execute operation Connect from rank 9" has no rule: it stays, alone
        assertThat(unexplained(report)).singleElement()
                .satisfies(f -> assertThat(f.evidence().getFirst().text()).contains("[Proxy Service 9] Failed to execute"));
    }

    @Test
    void linesThatDifferOnlyInNumbersAreOneFindingWithTheirCount() {
        LogReport report = file(CORPUS + "mooncake-device-path-does-not-exist-01.log");

        assertThat(unexplained(report)).extracting(Finding::occurrences).containsExactly(5L, 5L, 1L);
        assertThat(unexplained(report).getFirst().evidence().getFirst().text()).contains("Device path /dev/infiniband/mlx5_0 does not exist");
    }

    @Test
    void zeroCountersHeadingsAndTableHeadersAreNotErrors() {
        LogReport report = text("RX errors 0 dropped 0 overruns 0 frame 0\n"
                + "#       size         count      type   redop    root     time   algbw   busbw  error     time   algbw   busbw  error\n"
                + "Errors\n======\n# Out of bounds values : 0 OK\n"
                + "WARNING: Logging before InitGoogleLogging() is written to STDERR\n");

        assertThat(unexplained(report)).isEmpty();
        assertThat(unexplained(text("TX errors 425 dropped 0 overruns 0 carrier 0 collisions 0\n"))).hasSize(1);
    }

    @Test
    void aRuleThatConcludesWhenTheInputEndsExplainsTheLineItKept() {
        // perftest's completion error is judged once the input is read, for a "Failed status" line that may follow it
        LogReport report = text(" local address: LID 0x02 QPN 0x0032 PSN 0x5f2841\n Completion with error at client\n");

        assertThat(report.findings()).extracting(Finding::id).containsExactly("perftest-completion-error");
    }

    @Test
    void aLogOfManyKindsOfErrorsKeepsTwentyAndCountsTheRest() {
        StringBuilder log = new StringBuilder();
        for (int i = 0; i < 30; i++) {
            log.append("worker-").append(i).append(" ERROR step failed: code ").append(i).append(" in module m").append((char) ('a' + i % 26))
                    .append(i >= 26 ? "x" : "").append('\n');
        }
        List<Finding> found = unexplained(text(log.toString()));

        assertThat(found).hasSize(UnexplainedErrors.KEPT + 1);
        assertThat(found.getLast().summary()).startsWith("10 more lines that read as errors");
    }
}
