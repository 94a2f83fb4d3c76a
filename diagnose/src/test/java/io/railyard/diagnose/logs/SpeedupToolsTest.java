package io.railyard.diagnose.logs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/** The outputs `railyard speedup` reads: iperf3 (testdata/iperf3, real runs over loopback), perftest's CPU and latency, the all-reduce lines. */
class SpeedupToolsTest {

    @Test
    void iperf3JsonGivesTheSumsRetransmitsAndBothEndsCpu() {
        LogReport client = Analyzed.file("iperf3/iperf3-client-loopback-2streams-01.json");
        assertThat(client.kind()).isEqualTo("iperf3");
        assertThat(client.iperf3()).isEqualTo(new Iperf3Summary(18.547, 18.545, 5L, 97.73, 53.474, 2, true));
        assertThat(client.findings()).isEmpty();

        LogReport server = Analyzed.file("iperf3/iperf3-server-loopback-2streams-01.json");
        assertThat(server.iperf3().receivedGbps()).isEqualTo(18.545);
        assertThat(server.iperf3().localCpuPercent()).isEqualTo(53.474);
        assertThat(server.iperf3().sender()).isFalse();
    }

    @Test
    void iperf3TextGivesTheSumLinesOrTheOnlyStream() {
        LogReport verbose = Analyzed.file("iperf3/iperf3-client-loopback-verbose-01.txt");
        assertThat(verbose.kind()).isEqualTo("iperf3");
        assertThat(verbose.iperf3()).isEqualTo(new Iperf3Summary(21.9, 21.9, 6L, 98.5, 54.1, 2, true));

        LogReport plain = Analyzed.file("iperf3/iperf3-client-loopback-01.txt");
        assertThat(plain.iperf3()).isEqualTo(new Iperf3Summary(16.7, 16.7, 15L, null, null, null, null));
    }

    @Test
    void iperf3WithNoServerIsAnErrorWithItsRemedy() {
        for (String file : new String[] {"iperf3/iperf3-client-refused-01.json", "iperf3/iperf3-client-refused-01.txt"}) {
            LogReport report = Analyzed.file(file);
            assertThat(report.kind()).as(file).isEqualTo("iperf3");
            Finding finding = Analyzed.finding(report, "iperf3-connect-failed");
            assertThat(finding.summary()).isEqualTo("iperf3: unable to connect to server: Connection refused");
            assertThat(finding.remedy()).contains("iperf3 -s");
        }
    }

    @Test
    void anotherProgramsJsonErrorIsNotIperf3s() {
        LogReport report = Analyzed.text("{\n  \"level\": \"info\",\n  \"error\": \"disk full\"\n}\n");
        assertThat(report.kind()).isNotEqualTo("iperf3");
        assertThat(report.findings()).noneMatch(f -> f.id().startsWith("iperf3"));
    }

    @Test
    void perftestCpuColumnAndLatency() {
        LogReport bw = Analyzed.file("perftest/ib-write-bw-cpu-util-roce-92gbits-01.txt");
        assertThat(bw.kind()).isEqualTo("perftest");
        assertThat(bw.bandwidth().averageGbps()).isEqualTo(92.57);
        assertThat(bw.bandwidth().cpuPercent()).isEqualTo(5.07);

        LogReport lat = Analyzed.file("perftest/ib-write-lat-ib-1.47us-01.txt");
        assertThat(lat.bandwidth().typicalLatencyUs()).isEqualTo(1.47);
        assertThat(lat.bandwidth().averageGbps()).isNull();

        LogReport noColumn = Analyzed.file("perftest/ib-write-bw-duration-roce-42gbits-01.txt", OptionalDouble.empty());
        assertThat(noColumn.bandwidth().cpuPercent()).isNull();
    }

    @Test
    void allReduceBenchmarkLines() {
        LogReport report = Analyzed.text("""
                railyard-allreduce start ranks=16 nodes=2 nccl=2.21.5 NCCL_IB_DISABLE=0 NCCL_NET_GDR_LEVEL=PHB
                railyard-allreduce size=1048576 ranks=16 iters=20 time_us=80.0 algbw_gbs=13.11 busbw_gbs=24.58
                railyard-allreduce size=1073741824 ranks=16 iters=20 time_us=11000.0 algbw_gbs=97.61 busbw_gbs=183.02
                """);
        assertThat(report.kind()).isEqualTo("allreduce-bench");
        assertThat(report.bandwidth().peakBusGBps()).isEqualTo(183.02);
        assertThat(report.bandwidth().avgBusGBps()).isEqualTo(103.8);
        assertThat(report.bandwidth().rows()).hasSize(2);
        assertThat(report.findings()).isEmpty();
    }
}
