package io.railyard.diagnose.logs;

import static io.railyard.diagnose.logs.Analyzed.file;
import static io.railyard.diagnose.logs.Analyzed.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * analyze on NCCL's tuning in real logs (testdata/logs/corpus, with their sources): rings that cross NICs, and messages
 * split over many queue pairs. The variable lines are as NCCL prints them ({@code NCCL_CROSS_NIC set by environment to 1.}).
 */
class NcclTuningLinesTest {
    private static final String A100 = "logs/corpus/nccl-channels-gdrdma-err4-a100-01.log";

    @Test
    void aRealLogWhoseRanksKeepEachChannelOnOneNicSaysNothingOfRails() {
        for (String log : java.util.List.of("logs/corpus/nccl-channels-gdrdma-two-nodes-01.log", "logs/nccl-ib-gdr-ok-aks-01.log",
                "logs/corpus/nccl-2.4-gdr-disabled-distance-qpn-01.log")) {
            assertThat(file(log).findings()).as(log).noneMatch(f -> f.id().startsWith("nccl-cross") || f.id().equals("nccl-split-qps"));
        }
    }

    @Test
    void aChannelThatReceivesOnOneNicAndSendsOnAnotherCrossesRails() throws IOException {
        // the real log with one rank's send moved to another NIC, as NCCL_CROSS_NIC=1 lets it
        String log = Files.readString(Analyzed.TESTDATA.resolve(A100))
                .replace("Channel 01 : 2[c7000] -> 0[87000] [send] via NET/IB/2/GDRDMA", "Channel 01 : 2[c7000] -> 0[87000] [send] via NET/IB/5/GDRDMA");

        LogReport report = text("10-90-43-152:120890:121562 [2] NCCL INFO NCCL_CROSS_NIC set by environment to 1.\n" + log);

        assertThat(Analyzed.finding(report, "nccl-cross-rail").summary())
                .isEqualTo("rings cross NICs: channel 01 of rank 2 receives on NET/IB/2 and sends on NET/IB/5 (NCCL_CROSS_NIC 1, set by environment)");
        assertThat(Analyzed.finding(report, "nccl-cross-rail").remedy()).startsWith("on a rail-optimized fabric").contains("NCCL_CROSS_NIC=0");
    }

    /**
     * One node's log of a 16-rank job on two rail-optimized nodes (GPU i on NIC i), in NCCL 2.21's line format: channel c
     * enters each node at GPU c and leaves it from GPU c-1, each GPU on its own NIC, as NCCL_CROSS_NIC=1 allows. Every
     * process keeps each of its channels on one NIC; every hop between the nodes changes rails.
     */
    private static String railCrossingLog(boolean crossNic) {
        StringBuilder log = new StringBuilder("node-0:1000:1000 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n")
                .append("node-0:1000:1000 [0] NCCL INFO NCCL_CROSS_NIC set by environment to ").append(crossNic ? 1 : 0).append(".\n");
        for (int channel = 0; channel < 8; channel++) {
            int exit = (channel + 7) % 8;
            int receiveNic = channel;
            int sendNic = crossNic ? exit : channel; // without crossing, the exit GPU sends on the entry GPU's rail (its neighbour NIC)
            log.append(String.format("node-0:%d:%d [%d] NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] [send] via NET/IB/%d/GDRDMA%n",
                    1000 + exit, 2000 + exit, exit, channel, exit, exit, 8 + channel, channel, sendNic));
            log.append(String.format("node-0:%d:%d [%d] NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] [receive] via NET/IB/%d/GDRDMA%n",
                    1000 + channel, 2000 + channel, channel, channel, 8 + exit, exit, channel, channel, receiveNic));
        }
        return log.toString();
    }

    @Test
    void aHopBetweenTwoGpusOnDifferentNicsCrossesRailsThoughEachProcessKeepsToOneNic() {
        LogReport report = text(railCrossingLog(true));

        assertThat(Analyzed.finding(report, "nccl-cross-rail").summary()).isEqualTo("rings cross NICs: channel 00 hops from GPU 7 on"
                + " NET/IB/7 to GPU 0 on NET/IB/0 (rank 15 -> 0) (NCCL_CROSS_NIC 1, set by environment)");
        assertThat(text(railCrossingLog(false)).findings()).as("the same rings, each hop on one rail").noneMatch(f -> f.id().equals("nccl-cross-rail"));
        // a real log of four GPUs whose channels run over the NICs: rank 2 sends channel 01 on NET/IB/2, rank 0 receives it on NET/IB/5
        assertThat(Analyzed.finding(file(A100), "nccl-cross-rail").summary()).isEqualTo("rings cross NICs: channel 01 hops from GPU c7000"
                + " on NET/IB/2 to GPU 87000 on NET/IB/5 (rank 2 -> 0) (NCCL_CROSS_NIC 2, NCCL's default)");
    }

    @Test
    void aWholeNodesChannelsOnOneOfTheNicsNcclFoundAreNamed() {
        StringBuilder log = new StringBuilder("gpu-node-1:1520:1520 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB ib0:10.0.0.1<0>\n");
        for (int rank = 0; rank < 2; rank++) { // both local ranks' channels on NIC 0, in NCCL's own line format
            for (int channel = 0; channel < 2; channel++) {
                log.append(String.format("gpu-node-1:%d:%d [%d] NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] [send] via NET/IB/0/GDRDMA%n",
                        1520 + rank, 1600 + rank, rank, channel, rank, rank, rank + 2, rank));
            }
        }

        LogReport report = text(log.toString());

        assertThat(Analyzed.finding(report, "nccl-nics-unused").summary())
                .isEqualTo("the channels of 2 processes use 1 of the 2 NICs NCCL found (NET/IB/0)");
        assertThat(file(A100).findings()).as("a real log of 4 ranks on more NICs than processes says nothing")
                .noneMatch(f -> f.id().equals("nccl-nics-unused"));
    }

    @Test
    void messagesSplitOverManyQueuePairsAreNamed() {
        LogReport report = text("""
                gpu-node-1:1520:1520 [0] NCCL INFO NCCL_IB_QPS_PER_CONNECTION set by environment to 8.
                gpu-node-1:1520:1520 [0] NCCL INFO NCCL_IB_SPLIT_DATA_ON_QPS set by environment to 1.
                gpu-node-1:1520:1520 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>
                """);

        assertThat(Analyzed.finding(report, "nccl-split-qps").summary())
                .isEqualTo("NCCL_IB_SPLIT_DATA_ON_QPS=1 with NCCL_IB_QPS_PER_CONNECTION=8: every message is split over 8 queue pairs, which adds latency");
    }
}
