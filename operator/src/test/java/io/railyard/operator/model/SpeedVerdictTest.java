package io.railyard.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import io.railyard.diagnose.inspector.JobSpeedLine;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Degraded verdict on one line of the first pod's nccl-speed sidecar, with the job's preflight and ranks. */
class SpeedVerdictTest {
    private static final TrainingJob JOB = Jobs.yaml("{image: pytorch, script: t.py, nodes: 4, gpusPerNode: 8, rdma: {devicesPerNode: 2},"
            + " monitoring: {ncclInspector: {enabled: true}}}");

    private static JobSpeedLine line(String size, double gbps, List<JobSpeedLine.SlowRank> slow, int goodFor, List<Double> recent) {
        return new JobSpeedLine(9, 4, 4, 800, "AllReduce", size, "0x7f8c496ae9f661", gbps, 80, 3,
                List.of(new JobSpeedLine.Median("AllReduce", size, "0x7f8c496ae9f661", gbps, 4)), slow, slow.size(), 0, goodFor, recent);
    }

    /** Four nodes whose two 400 Gb/s HCAs measured 390 Gb/s each in preflight, and their ranks. */
    private static TrainingJobStatus status() {
        TrainingJobStatus status = new TrainingJobStatus();
        status.preflight = new TrainingJobStatus.Preflight();
        status.preflight.links = new ArrayList<>();
        status.ranks = new ArrayList<>();
        for (int node = 0; node < 4; node++) {
            for (String hca : List.of("mlx5_0", "mlx5_1")) {
                TrainingJobStatus.PreflightLink link = new TrainingJobStatus.PreflightLink();
                link.from = "gpu-" + node;
                link.to = "gpu-" + (node + 1) % 4;
                link.hca = hca;
                link.gbps = 390.0;
                status.preflight.links.add(link);
            }
            TrainingJobStatus.Rank rank = new TrainingJobStatus.Rank();
            rank.rank = node;
            rank.pod = "job-" + (3 - node); // topology order: rank and pod index differ
            rank.node = "gpu-" + node;
            status.ranks.add(rank);
        }
        return status;
    }

    @Test
    void aRankSlowForTheWindowsIsNamedWithItsPodNodeAndNics() {
        List<JobSpeedLine.SlowRank> slow = List.of(new JobSpeedLine.SlowRank("2", "job-1", 48.5, 3), new JobSpeedLine.SlowRank("3", "job-0", 75, 1));

        SpeedVerdict verdict = SpeedVerdict.of(line("1 GiB", 95, slow, 0, List.of(95.0, 95.0, 95.0)), JOB.getSpec(), status(), true).orElseThrow();

        assertThat(verdict.degraded()).isTrue();
        assertThat(verdict.reason()).isEqualTo("RanksSlow");
        assertThat(verdict.message()).isEqualTo("rank 2 in pod job-1 on node gpu-2 (NICs mlx5_0, mlx5_1) at 48.5% and 1 more of the job's median"
                + " AllReduce 1 GiB bus bandwidth 95.0 GB/s, below 80% for 3 intervals in a row");
        assertThat(verdict.performance().slowRanks).as("only the rank slow for the windows").extracting(r -> r.rank).containsExactly(2);
        assertThat(verdict.performance().expectedGbps).isEqualTo(97.5);
    }

    @Test
    void oneSlowGpuOfAPodIsNamedByItsGlobalRankGpuAndNic() {
        List<JobSpeedLine.SlowRank> slow = List.of(new JobSpeedLine.SlowRank("1", "job-2", 50.1, 3, 13, 5, "mlx5_1:1"));

        SpeedVerdict verdict = SpeedVerdict.of(line("1 GiB", 95, slow, 0, List.of(95.0, 95.0, 95.0)), JOB.getSpec(), status(), true).orElseThrow();

        assertThat(verdict.message()).isEqualTo("rank 13 (GPU 5, NIC mlx5_1:1) in pod job-2 on node gpu-1 at 50.1% of the job's median"
                + " AllReduce 1 GiB bus bandwidth 95.0 GB/s, below 80% for 3 intervals in a row");
        assertThat(verdict.performance().slowRanks).singleElement().satisfies(rank -> {
            assertThat(rank.rank).isEqualTo(1);
            assertThat(rank.globalRank).isEqualTo(13);
            assertThat(rank.gpu).isEqualTo(5);
            assertThat(rank.nic).isEqualTo("mlx5_1:1");
            assertThat(rank.node).isEqualTo("gpu-1");
        });
    }

    @Test
    void theJobBelowItsPreflightFigureForTheWindowsIsJobSlowButOnlyForLargeMessages() {
        SpeedVerdict verdict = SpeedVerdict.of(line("1 GiB", 60, List.of(), 3, List.of(61.0, 58.5, 60.0)), JOB.getSpec(), status(), true).orElseThrow();
        assertThat(verdict.reason()).isEqualTo("JobSlow");
        assertThat(verdict.message()).startsWith("the job's median AllReduce 1 GiB bus bandwidth 60.0 GB/s has been below 80% of the 97.5 GB/s"
                + " its links measured in preflight for 3 intervals in a row");

        assertThat(SpeedVerdict.of(line("1 GiB", 60, List.of(), 3, List.of(90.0, 58.5, 60.0)), JOB.getSpec(), status(), true))
                .as("one of the windows was fast: undecided").isEmpty();
        assertThat(SpeedVerdict.of(line("1 MiB", 6, List.of(), 3, List.of(6.0, 6.0, 6.0)), JOB.getSpec(), status(), true).orElseThrow().degraded())
                .as("1 MiB is latency-bound").isFalse();
        assertThat(SpeedVerdict.of(line("1 GiB", 60, List.of(), 3, List.of(61.0, 58.5, 60.0)), JOB.getSpec(), new TrainingJobStatus(), true)
                .orElseThrow().degraded()).as("no preflight: nothing to compare with").isFalse();
    }

    @Test
    void goodIntervalsMakeItFastAndNoDataWaitsForNccl() {
        SpeedVerdict fast = SpeedVerdict.of(line("1 GiB", 96, List.of(), 3, List.of(96.0, 96.0, 96.0)), JOB.getSpec(), status(), true).orElseThrow();
        assertThat(fast.degraded()).isFalse();
        assertThat(fast.message()).isEqualTo("every rank within 80% of the job's median AllReduce 1 GiB bus bandwidth 96.0 GB/s for 3 intervals;"
                + " preflight measured 97.5 GB/s");
        assertThat(SpeedVerdict.of(line("1 GiB", 96, List.of(), 2, List.of(96.0, 96.0)), JOB.getSpec(), status(), true)).isEmpty();

        JobSpeedLine empty = new JobSpeedLine(5, 4, 4, 0, null, null, null, null, 80, 3, List.of(), List.of(), 0, 5, 0, List.of());
        assertThat(SpeedVerdict.of(empty, JOB.getSpec(), status(), false)).as("NCCL may still be loading the model").isEmpty();
        assertThat(SpeedVerdict.of(empty, JOB.getSpec(), status(), true).orElseThrow().reason()).isEqualTo("NoData");
    }
}
