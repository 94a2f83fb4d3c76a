package io.railyard.operator.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The helper's framed blocks around real ib_write_bw outputs (testdata/perftest). */
class HelperOutputTest {
    static final Path PERFTEST = Path.of(System.getProperty("railyard.repo", "..")).resolve("testdata/perftest");

    static String block(String role, int index, String hca, Double rate, String sample, String exit) throws IOException {
        return HelperOutput.begin(role, index, hca, 1, rate, role.equals("client") ? "10.0.0.2" : null) + "\n"
                + Files.readString(PERFTEST.resolve(sample)) + HelperOutput.end(role, index, hca, exit) + "\n";
    }

    @Test
    void aClientsAverageOfADurationRunIsItsResult() throws IOException {
        HelperOutput.Output output = HelperOutput.parse(block("client", 0, "mlx5_0", 100.0, "ib-write-bw-duration-roce-95gbits-edited-01.txt", "0"));

        assertThat(output.error()).isNull();
        assertThat(output.runs()).singleElement().satisfies(run -> {
            assertThat(run.hca()).isEqualTo("mlx5_0");
            assertThat(run.gbps()).isEqualTo(95.01);
            assertThat(run.rateGbps()).isEqualTo(100.0);
            assertThat(run.error()).isNull();
        });
    }

    @Test
    void failuresCarryPerftestsOwnWords() throws IOException {
        String log = block("client", 0, "mlx5_0", null, "ib-write-bw-connect-failed-01.txt", "1")
                + block("client", 1, "mlx5_1", null, "ib-write-bw-completion-error-01.txt", "1")
                + HelperOutput.begin("client", 2, "mlx5_2", 1, null, "10.0.0.2") + "\n" + HelperOutput.end("client", 2, "mlx5_2", "timeout") + "\n";

        HelperOutput.Output output = HelperOutput.parse(log);

        assertThat(output.runs(PreflightPods.CLIENT)).extracting(HelperOutput.Run::error).containsExactly(
                "ib_write_bw: Couldn't connect to 192.168.125.211:18515",
                "perftest completions failed with status 4",
                "no result before the timeout (the peer never connected or the test hung)");
        assertThat(output.runs()).allSatisfy(run -> assertThat(run.gbps()).isNull());
    }

    @Test
    void aServerWithoutResultsIsFineAndAnErrorLineIsKept() throws IOException {
        String log = "libibverbs: Warning: couldn't load driver 'libmana-rdmav34.so'\n"
                + block("server", 0, "mlx5_3", 200.0, "ib-write-bw-duration-ib-198gbits-edited-01.txt", "0").replace(" 65536 ", " ")
                + HelperOutput.error("no RDMA device is allocated to this container") + "\n";

        HelperOutput.Output output = HelperOutput.parse(log);

        assertThat(output.runs(PreflightPods.SERVER)).singleElement().satisfies(run -> assertThat(run.error()).isNull());
        assertThat(output.error()).isEqualTo("no RDMA device is allocated to this container");
    }

    @Test
    void aLogCutInsideARunSaysSo() throws IOException {
        String log = block("client", 0, "mlx5_0", 200.0, "ib-write-bw-duration-ib-198gbits-edited-01.txt", "0");
        HelperOutput.Output output = HelperOutput.parse(log.substring(0, log.indexOf(HelperOutput.MARK + "end")));

        assertThat(output.runs()).singleElement().satisfies(run -> assertThat(run.error()).isEqualTo("its output ends before the test did"));
    }
}
