package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.railyard.diagnose.ras.HangDetector;
import io.railyard.diagnose.ras.RasClient;
import io.railyard.diagnose.ras.RasText;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** One RAS query against a fake RAS on loopback, and the watcher's line for what the report says. */
class RasClientTest {
    private static final Path RAS = HelmTool.REPO.resolve("testdata/ras");

    @Test
    void aServerThatNeverAnswersIsGivenUpOnWithinTheTimeout() throws Exception {
        try (FakeRas ras = new FakeRas(true, List.of(FakeRas.SILENT))) {
            RasClient client = new RasClient(HostPort.parse("--ras", ras.address()), Duration.ofSeconds(1));

            // the connect is immediate on loopback: one second to wait, and some for the JVM
            assertTimeoutPreemptively(Duration.ofMillis(2500), () ->
                    assertThatThrownBy(client::status).isInstanceOf(IOException.class));
        }
    }

    @Test
    void rasIsAskedToGatherWithinHalfTheTimeout() throws Exception {
        try (FakeRas ras = new FakeRas(false, List.of(Files.readString(RAS.resolve("ras-text-straggler-2.26.2-01.txt"))))) {
            String report = new RasClient(HostPort.parse("--ras", ras.address()), Duration.ofSeconds(10)).status();

            assertThat(report).contains("fa93daea854b060b");
            assertThat(ras.commands()).containsSubsequence("TIMEOUT 5", "VERBOSE STATUS");
        }
    }

    @Test
    void theWatchersLineNamesNoRankMinusOne() throws Exception {
        // two processes dead, one rank missing: which process is the rank cannot be told
        String report = Files.readString(RAS.resolve("ras-text-dead-missing-rank-2.24-01.txt"))
                .replace(" Process 3487984 on node 172.16.64.213 managing GPU 5", " Process 3487984 on node 172.16.64.213 managing GPU 5\n"
                        + " Process 3487990 on node 172.16.64.214 managing GPU 3");
        HangDetector.Verdict verdict = new HangDetector(Duration.ofSeconds(300)).observe(RasText.parse(report), Instant.EPOCH);

        Map<String, Object> line = NcclWatchCommand.json(verdict, Instant.EPOCH);

        assertThat(verdict.state()).isEqualTo(HangDetector.State.MISSING);
        assertThat(Json.line(line)).doesNotContain("-1");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> ranks = (List<Map<String, Object>>) line.get("ranks");
        assertThat(ranks).anySatisfy(rank -> assertThat(rank).doesNotContainKey("rank")
                .containsEntry("host", "172.16.64.214").containsEntry("pid", 3487990L).containsEntry("cudaDev", 3));
        assertThat(ranks).anySatisfy(rank -> assertThat(rank).containsEntry("rank", 21).doesNotContainKeys("pid", "cudaDev"));
        assertThat((String) line.get("message")).contains("process 3487990 on 172.16.64.214 (GPU 3): considered dead")
                .doesNotContain("rank -1");
    }
}
