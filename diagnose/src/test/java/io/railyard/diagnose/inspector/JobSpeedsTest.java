package io.railyard.diagnose.inspector;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The first pod's view of a 64-rank job: every rank's summary in, one line per interval out. */
class JobSpeedsTest {
    private static final Duration INTERVAL = Duration.ofSeconds(30);
    private static final IntervalSpeeds.Key ALL_REDUCE = new IntervalSpeeds.Key("AllReduce", "1 GiB", "DP Group 0");
    private static final IntervalSpeeds.Key ALL_GATHER = new IntervalSpeeds.Key("AllGather", "16 MiB", "DP Group 0");

    private Instant now = Instant.parse("2026-12-05T10:00:00Z");

    /** Rank r's interval: 200 AllReduce of 1 GiB at {@code gbps}, and short AllGathers that take less of its time. */
    private static RankSummary rank(int r, double gbps) {
        return new RankSummary(String.valueOf(r), "llama-" + r, List.of(
                new IntervalSpeeds.Speed(ALL_GATHER, 90, 80, 0.0002, 400),
                new IntervalSpeeds.Speed(ALL_REDUCE, gbps, gbps * 0.95, 1.07e9 * 2 / gbps / 1e9, 200)));
    }

    /** One interval in which every rank reports, rank 17 at {@code slowGbps}. */
    private JobSpeedLine interval(JobSpeeds job, double slowGbps) {
        now = now.plus(INTERVAL);
        for (int r = 0; r < 64; r++) {
            job.add(RankSummary.parse(rank(r, r == 17 ? slowGbps : 400 + r % 5).toJson()).orElseThrow(), now.minusSeconds(r % 20));
        }
        return job.close(now);
    }

    @Test
    void aRankBelowTheShareOfTheJobsMedianIsNamedWithItsStreak() {
        JobSpeeds job = new JobSpeeds(64, 80, 3, INTERVAL);
        List<JobSpeedLine> lines = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            lines.add(interval(job, 240));
        }
        JobSpeedLine line = lines.getLast();
        assertThat(line.reporting()).isEqualTo(64);
        assertThat(line.collective() + " " + line.size()).as("judged on what took the ranks the most time").isEqualTo("AllReduce 1 GiB");
        assertThat(line.busBandwidthGbps()).isEqualTo(402.0);
        assertThat(line.slow()).singleElement().satisfies(slow -> {
            assertThat(slow.rank()).isEqualTo("17");
            assertThat(slow.host()).isEqualTo("llama-17");
            assertThat(slow.percent()).isEqualTo(59.7);
            assertThat(slow.slowFor()).isEqualTo(3);
        });
        assertThat(lines).extracting(JobSpeedLine::goodFor).containsExactly(0, 0, 0);
        assertThat(line.medians()).extracting(m -> m.collective() + " " + m.busBandwidthGbps() + " " + m.ranks())
                .containsExactly("AllReduce 402.0 64", "AllGather 90.0 64");
        assertThat(line.recentGbps()).containsExactly(402.0, 402.0, 402.0);

        JobSpeedLine recovered = interval(job, 401);
        assertThat(recovered.slow()).isEmpty();
        assertThat(recovered.goodFor()).isEqualTo(1);
        assertThat(interval(job, 230).slow()).singleElement().satisfies(slow -> assertThat(slow.slowFor()).as("a new streak").isEqualTo(1));
    }

    @Test
    void intervalsWithoutRecordsAreCountedAndASummaryTooOldIsLeftOut() {
        JobSpeeds job = new JobSpeeds(4, 80, 3, INTERVAL);
        job.add(new RankSummary("1", "a", List.of()), now);
        assertThat(job.close(now).noDataFor()).isEqualTo(1);
        now = now.plus(INTERVAL);
        JobSpeedLine second = job.close(now);
        assertThat(second.noDataFor()).isEqualTo(2);
        assertThat(second.reporting()).as("the summary of 30 s ago still counts").isEqualTo(1);
        assertThat(second.busBandwidthGbps()).isNull();

        job.add(rank(2, 300), now);
        now = now.plus(INTERVAL.multipliedBy(2));
        assertThat(job.close(now).reporting()).as("60 s old: the rank sent nothing since").isZero();
    }

    @Test
    void theLineIsOneJsonLineThatReadsBackFromTheEndOfALog() {
        JobSpeeds job = new JobSpeeds(64, 80, 3, INTERVAL);
        JobSpeedLine line = interval(job, 100);
        String json = line.toJson();
        assertThat(json).startsWith("{\"interval\":1,").doesNotContain("\n");
        String log = "nccl-speed: reading /var/run/railyard/nccl-inspector, serving /metrics on port 9403\n" + json + "\n"
                + json.substring(0, 40);
        assertThat(JobSpeedLine.last(log)).contains(line);
        assertThat(JobSpeedLine.last("nccl-speed: cannot send to x:9404: refused")).isEmpty();
    }

    @Test
    void aSummaryReadsBackAndAnythingElseIsNone() {
        RankSummary summary = rank(3, 400);
        assertThat(RankSummary.parse(summary.toJson())).contains(summary);
        assertThat(RankSummary.parse("{\"rank\":3}")).isEmpty();
        assertThat(RankSummary.parse("GET / HTTP/1.1")).isEmpty();
        assertThat(RankSummary.parse("{\"rank\":\"3\",\"speeds\":[{\"median\":\"fast\"}]}")).isEmpty();
    }

    @Test
    void sizeBucketsReadBack() {
        assertThat(InspectorRecord.bytes(InspectorRecord.size(1L << 30))).isEqualTo(1L << 30);
        assertThat(InspectorRecord.bytes("512 KiB")).isEqualTo(512 << 10);
        assertThat(InspectorRecord.bytes("lots")).isZero();
    }
}
