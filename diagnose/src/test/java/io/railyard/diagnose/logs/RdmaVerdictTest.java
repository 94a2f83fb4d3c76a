package io.railyard.diagnose.logs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import org.junit.jupiter.api.Test;

class RdmaVerdictTest {
    private static String log(String name) throws Exception {
        return Files.readString(Analyzed.TESTDATA.resolve("logs").resolve(name));
    }

    @Test
    void verdicts() throws Exception {
        RdmaVerdict ok = RdmaVerdict.of(log("nccl-ib-gdr-ok-aks-01.log"), true);
        RdmaVerdict fallback = RdmaVerdict.of(log("nccl-socket-fallback-driver-stopped-01.log"), true);
        RdmaVerdict noGdr = RdmaVerdict.of(log("nccl-roce-gdr-disabled-01.log"), true);
        RdmaVerdict retry = RdmaVerdict.of(log("nccl-ib-retry-exceeded-01.log"), true);
        RdmaVerdict early = RdmaVerdict.of("gpu-a:1:2 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n", true);

        assertThat(ok.verified()).isTrue();
        assertThat(ok.reason()).isEqualTo("RdmaInUse");
        assertThat(fallback.verified()).isFalse();
        assertThat(fallback.reason()).isEqualTo("SocketFallback");
        assertThat(fallback.evidence()).isNotEmpty();
        assertThat(noGdr.reason()).isEqualTo("GpuDirectOff");
        assertThat(RdmaVerdict.of(log("nccl-roce-gdr-disabled-01.log"), false).verified()).isTrue();
        assertThat(retry.reason()).isEqualTo("RdmaErrors");
        assertThat(early.verified()).isNull();
    }

    /** The operator's verdict on rank 0's log uses the same inference: real fragments without a "Using network" line. */
    @Test
    void fragmentsDecideTheVerdictToo() throws Exception {
        assertThat(RdmaVerdict.of(log("corpus/nccl-ib-2.4-socket-line-is-oob-01.log"), false).verified()).as("NET/IB set up, socket line is OOB").isTrue();
        assertThat(RdmaVerdict.of(log("corpus/nccl-aws-ib-no-device-socket-01.log"), false).reason()).isEqualTo("SocketFallback");
        assertThat(RdmaVerdict.of(log("corpus/nccl-channels-ibext-v8-01.log"), false).verified()).as("IBext is RDMA").isTrue();
        // the rings are on the OFI plugin, and then one rank cannot open its address vector: the job hangs there
        assertThat(RdmaVerdict.of(log("corpus/nccl-2.4-ring-aws-libfabric-mpirun-prefix-01.log"), false).reason()).isEqualTo("RdmaErrors");
        assertThat(RdmaVerdict.of(log("corpus/nccl-bootstrap-only-bond0-01.log"), false).verified()).as("nothing says yet").isNull();
    }
}
