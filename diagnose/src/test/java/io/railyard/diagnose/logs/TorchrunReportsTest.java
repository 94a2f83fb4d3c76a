package io.railyard.diagnose.logs;

import static io.railyard.diagnose.logs.Analyzed.file;
import static io.railyard.diagnose.logs.Analyzed.text;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * What a user of torchrun pastes first, from the corpus's thirteenth batch (testdata/logs/corpus, with their sources):
 * torchrun's failure table, the elastic agent's lines and events, a PyTorch exception quoting NCCL; and the tools
 * pasted beside them, ucx_info -v and a perftest header with a zero GID.
 */
class TorchrunReportsTest {
    private static final String CORPUS = "logs/corpus/";

    @Test
    void theFailureTableNamesEachFailedRankItsHostAndExitTheFirstObservedFirst() {
        LogReport report = file(CORPUS + "torchrun-childfailederror-table-minigpt4-237-01.log");

        assertThat(report.kind()).isEqualTo("pytorch");
        assertThat(report.torchrun().failures()).containsExactly(
                new TorchrunSummary.Failure(0, 0, "n136-117-136.byted.org", 1, null, 78970L, true),
                new TorchrunSummary.Failure(1, 1, "n136-117-136.byted.org", 1, null, 78971L, false));
        assertThat(Analyzed.finding(report, "torchrun-failed").summary())
                .isEqualTo("2 workers failed; first rank 0 on n136-117-136.byted.org (exit 1); also rank 1");
    }

    @Test
    void aWorkerKilledBySignalIsNamedBySignalAndTheRemedySaysWhatKillsOne() {
        LogReport report = file(CORPUS + "torchrun-failed-exitcode-minus9-egovlp-21-01.log");

        assertThat(report.torchrun().failures()).singleElement()
                .isEqualTo(new TorchrunSummary.Failure(null, 3, null, -9, "SIGKILL", 407727L, false));
        Finding failed = Analyzed.finding(report, "torchrun-failed");
        assertThat(failed.summary()).isEqualTo("1 worker failed; local rank 3 (SIGKILL (-9))");
        assertThat(failed.remedy()).contains("OOM killer");
    }

    @Test
    void theElasticAgentsWorkerEventsNameTheFailedRanksThoughTheLastLineIsCut() {
        LogReport report = file(CORPUS + "torchelastic-worker-status-three-failed-streampetr-19-01.log");

        assertThat(report.kind()).isEqualTo("pytorch");
        assertThat(report.torchrun().failures()).extracting(TorchrunSummary.Failure::rank).containsExactly(3, 4, 5);
        assertThat(report.torchrun().failures()).allSatisfy(f -> assertThat(f.host()).isEqualTo("sajadi"));
        assertThat(file(CORPUS + "torchelastic-worker-status-failed-64990-01.log").torchrun().failures())
                .as("the agent's own SUCCEEDED event is no failed worker").singleElement()
                .isEqualTo(new TorchrunSummary.Failure(1, null, "ip-172-30-2-79", null, null, 28454L, false));
    }

    @Test
    void theNcclErrorUnderTheFailureIsNamedAndTheVersionPyTorchQuotesIsNccls() {
        LogReport hunyuan = file(CORPUS + "pytorch-nccl-error-2-torchrun-failed-hunyuan-114-01.log");
        LogReport slowFast = file(CORPUS + "pytorch-nccl-error-2.7.8-system-error-slowfast-535-01.log");

        assertThat(hunyuan.torchrun().ncclError()).isEqualTo("NCCL Error 2: unhandled system error");
        assertThat(Analyzed.finding(hunyuan, "torchrun-failed").summary()).endsWith("; under it: NCCL Error 2: unhandled system error");
        assertThat(slowFast.kind()).as("PyTorch's exception, not NCCL's own log").isEqualTo("pytorch");
        assertThat(slowFast.nccl().version()).isEqualTo("2.7.8");
        assertThat(slowFast.nccl().transport()).isEqualTo("unknown");
    }

    /** ucx_info -v as UCX 1.14+ prints it (src/tools/info/version_info.c), and 1.9's two lines: no thread's paste was found. */
    @Test
    void ucxInfoVersionSaysTheVersionAndWhatItWasBuiltWithout() {
        LogReport recent = text("""
                # Library version: 1.16.0
                # Library path: /usr/lib/x86_64-linux-gnu/libucs.so.0
                # API headers version: 1.16.0
                # Git branch '', revision 02432d3
                # Configured with: --disable-logging --disable-debug --disable-assertions --disable-params-check --without-cuda --with-verbs
                """);
        LogReport older = text("""
                # UCT version=1.9.0 revision 1d0a420
                # configured with: --prefix=/opt/ucx --with-cuda=/usr/local/cuda --with-verbs --with-rdmacm --with-gdrcopy=/usr
                """);

        assertThat(recent.kind()).isEqualTo("ucx");
        assertThat(Analyzed.finding(recent, "ucx-built-without").summary()).isEqualTo("UCX 1.16.0 was built without cuda: it cannot move GPU memory");
        assertThat(Analyzed.finding(older, "ucx-build").summary()).isEqualTo("UCX 1.9.0, built with cuda, verbs, rdmacm, gdrcopy");
    }

    /** The header of tensorflow/tensorflow#22077's ib_write_bw (RoCE, rdma_cm), its GIDs as pasted and then zeroed. */
    @Test
    void aPerftestHeaderWhoseGidIsAllZerosSaysThePortHasNoRoceGid() {
        String header = """
                 Link type       : Ethernet
                 GID index       : 1
                 Max inline data : 0[B]
                 rdma_cm QPs     : ON
                 Data ex. method : rdma_cm
                ---------------------------------------------------------------------------------------
                 local address: LID 0000 QPN 0x025e PSN 0xb34c82
                 GID: 00:00:00:00:00:00:00:00:00:00:255:255:12:12:12:16
                 remote address: LID 0000 QPN 0x025e PSN 0x7695fc
                 GID: 00:00:00:00:00:00:00:00:00:00:255:255:12:12:12:12
                """;

        assertThat(text(header).findings()).noneMatch(f -> f.id().equals("perftest-zero-gid"));
        LogReport zero = text(header.replace("255:255:12:12:12:16", "00:00:00:00:00:00"));
        assertThat(zero.kind()).isEqualTo("perftest");
        assertThat(Analyzed.finding(zero, "perftest-zero-gid").remedy()).contains("RoCE v2 GID").contains("-x");
    }
}
