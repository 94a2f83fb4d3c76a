package io.railyard.diagnose.ras;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RAS reports as NCCL writes them (testdata/ras, with their sources), read and judged. */
class RasReportsTest {
    static final Path RAS = Path.of(System.getProperty("railyard.repo", "..")).resolve("testdata/ras");
    private static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");

    static String read(String name) throws IOException {
        return Files.readString(RAS.resolve(name));
    }

    @Test
    void theTextStragglerReportNamesTheMinorityWhichIsAhead() throws IOException {
        RasReport report = RasText.parse(read("ras-text-straggler-2.26.2-01.txt"));

        assertThat(report.communicators()).singleElement().satisfies(comm -> {
            assertThat(comm.id()).isEqualTo("fa93daea854b060b");
            assertThat(comm.operations().get("AllGather")).extracting(g -> g.count() + "x" + g.size()).containsExactly("640x30", "641x2");
            assertThat(comm.operations().get("AllGather").get(1).named()).containsExactly(
                    new RasReport.Rank(12, "10.137.190.124", 323032, 4), new RasReport.Rank(13, "10.137.190.124", 323033, 5));
        });
        HangDetector detector = new HangDetector(Duration.ofSeconds(300));
        HangDetector.Verdict first = detector.observe(report, T0);
        HangDetector.Verdict frozen = detector.observe(report, T0.plusSeconds(301));

        assertThat(first.state()).as("one report's difference is jitter").isEqualTo(HangDetector.State.HEALTHY);
        assertThat(frozen.state()).isEqualTo(HangDetector.State.STALLED);
        assertThat(frozen.ranks()).singleElement().satisfies(s -> {
            assertThat(s.rank()).as("the 30 behind are not named; the listed two are ahead, not blamed").isEqualTo(-1);
            assertThat(frozen.message()).doesNotContain("rank -1");
            assertThat(s.reason()).isEqualTo("30 ranks (not named by the report): AllGather launched up to 640 while other ranks are at 641");
        });
    }

    @Test
    void aStoppedProcessIsMissingThenDead() throws IOException {
        RasReport report = RasText.parse(read("ras-text-dead-process-01.txt"));

        // the one missing process is the one missing rank: 2.24 and 2.25 print them apart
        assertThat(report.unresponsive()).containsExactly(new RasReport.Rank(21, "172.16.64.213", 3487984, 5));
        assertThat(report.dead()).containsExactly(new RasReport.Rank(21, "172.16.64.213", 3487984, 5));
        assertThat(report.communicators().getFirst().missing()).containsExactly(new RasReport.Rank(21, null, -1, -1));
        HangDetector.Verdict verdict = new HangDetector(Duration.ofSeconds(300)).observe(report, T0);
        assertThat(verdict.state()).isEqualTo(HangDetector.State.MISSING);
        assertThat(verdict.message()).isEqualTo("rank 21 on 172.16.64.213 (process 3487984, GPU 5): considered dead (unreachable via the RAS network)");
    }

    @Test
    void aRankThatStopsAnsweringThenDiesIsMissingAsSoonAsTheReportSaysSoNeverStalled() throws IOException {
        String dead24 = read("ras-text-dead-missing-rank-2.24-01.txt");
        // 2.24's one-space layout of the same report a minute earlier, before RAS calls the process dead (its DEAD block
        // as the 2.25 doc's INCOMPLETE block words it)
        String stopped24 = dead24.replace(" 1 job process is considered dead (unreachable via the RAS network)", " Missing communicator data from 1 job process")
                .replace("\nDEAD\n", "\nINCOMPLETE\n");
        for (String stoppedText : List.of(read("ras-text-incomplete-missing-rank-2.25-01.txt"), stopped24)) {
            HangDetector detector = new HangDetector(Duration.ofSeconds(300));
            RasReport stopped = RasText.parse(stoppedText);

            // the counts had stood still past the stall's wait before RAS saw that the process no longer answers
            detector.observe(RasText.parse(read("ras-text-mismatch-2.24-01.txt")), T0);
            HangDetector.Verdict first = detector.observe(stopped, T0.plusSeconds(400));
            HangDetector.Verdict stillStopped = detector.observe(stopped, T0.plusSeconds(700));
            HangDetector.Verdict died = detector.observe(RasText.parse(dead24), T0.plusSeconds(760));

            assertThat(first.state()).isEqualTo(HangDetector.State.MISSING);
            assertThat(first.message()).isEqualTo("rank 21 on 172.16.64.213 (process 3487984, GPU 5): did not answer RAS");
            assertThat(stillStopped.state()).isEqualTo(HangDetector.State.MISSING);
            assertThat(stillStopped.message()).isEqualTo(first.message());
            assertThat(died.state()).isEqualTo(HangDetector.State.MISSING);
            assertThat(died.ranks()).singleElement().isEqualTo(new HangDetector.Suspect(21, "172.16.64.213", 3487984, 5,
                    "considered dead (unreachable via the RAS network)"));
        }
    }

    @Test
    void ncclTwoTwentyFoursOneCountLineNamesTheSixRanksBehind() throws IOException {
        RasReport report = RasText.parse(read("ras-text-mismatch-2.24-01.txt"));
        HangDetector detector = new HangDetector(Duration.ofSeconds(300));

        assertThat(report.groups()).singleElement().satisfies(g -> assertThat(g.errors()).isEqualTo("MISMATCH"));
        assertThat(detector.observe(report, T0).state()).isEqualTo(HangDetector.State.HEALTHY);
        HangDetector.Verdict frozen = detector.observe(report, T0.plusSeconds(300));
        assertThat(frozen.state()).isEqualTo(HangDetector.State.STALLED);
        assertThat(frozen.ranks()).extracting(HangDetector.Suspect::rank).containsExactly(0, 2, 3, 4, 5, 7);
        assertThat(frozen.message()).contains("rank 0 on 172.16.64.210 (process 483072, GPU 0): collective launched up to 6649 while other ranks are at 6650");
    }

    @Test
    void healthyWhileAWatchdogFiresBecauseCountsAreLaunches() throws IOException {
        HangDetector detector = new HangDetector(Duration.ofSeconds(300));
        RasReport report = RasText.parse(read("ras-text-healthy-during-timeout-2.26.2-01.txt"));

        assertThat(detector.observe(report, T0).state()).isEqualTo(HangDetector.State.HEALTHY);
        assertThat(detector.observe(report, T0.plusSeconds(3600)).state()).as("nothing behind, nothing missing").isEqualTo(HangDetector.State.HEALTHY);
    }

    @Test
    void anIncompleteCommunicatorNamesItsMissingRankAndIgnoresTheBogusOne() throws IOException {
        RasReport report = RasText.parse(read("ras-text-missing-nocomm-2.27.3-01.txt"));

        assertThat(report.communicators().getFirst().missing()).contains(new RasReport.Rank(1, "10.4.109.13", 60004, 0));
        assertThat(new HangDetector(Duration.ofSeconds(300)).observe(report, T0).state()).isEqualTo(HangDetector.State.MISSING);
    }

    @Test
    void theJsonReportAndItsMissingCommaVersion() throws IOException {
        RasReport fixed = RasJson.parse(read("ras-json-missing-rank-2.29.1-01.json"));
        RasReport broken = RasJson.parse(read("ras-json-missing-comma-2.28.9-01.json"));

        assertThat(fixed.ncclVersion()).isEqualTo("2.29.1");
        assertThat(broken.ncclVersion()).isEqualTo("2.28.9");
        for (RasReport report : List.of(fixed, broken)) {
            assertThat(report.communicators()).singleElement().satisfies(comm -> {
                assertThat(comm.id()).isEqualTo("ae94423cfbb2ef4a");
                assertThat(comm.size()).isEqualTo(2);
                assertThat(comm.missing()).containsExactly(new RasReport.Rank(1, "172.16.64.245", 1524345, 1));
                assertThat(comm.operations()).containsOnlyKeys("Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce");
            });
        }
        assertThat(RasJson.looksLikeJson(read("ras-json-missing-comma-2.28.9-01.json"))).isTrue();
        assertThatThrownBy(() -> RasJson.parse("{\"nccl_version\": ")).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("not a RAS JSON report");
    }

    @Test
    void twoRanksBehindThatCatchUpAreNeverStalledOneStuckWhileOthersMoveIsLagging() {
        HangDetector detector = new HangDetector(Duration.ofSeconds(60));
        // counts as a 4-rank job's JSON would give them, edited from the real sample's numbers
        assertThat(detector.observe(RasSamples.allReduce(100, 100, 99, 99), T0).state()).isEqualTo(HangDetector.State.HEALTHY);
        assertThat(detector.observe(RasSamples.allReduce(140, 140, 139, 140), T0.plusSeconds(30)).state()).isEqualTo(HangDetector.State.HEALTHY);
        assertThat(detector.observe(RasSamples.allReduce(180, 180, 180, 180), T0.plusSeconds(60)).state()).isEqualTo(HangDetector.State.HEALTHY);

        assertThat(detector.observe(RasSamples.allReduce(200, 200, 200, 181), T0.plusSeconds(90)).state()).isEqualTo(HangDetector.State.HEALTHY);
        HangDetector.Verdict lagging = detector.observe(RasSamples.allReduce(230, 230, 230, 181), T0.plusSeconds(120));
        assertThat(lagging.state()).isEqualTo(HangDetector.State.LAGGING);
        assertThat(lagging.ranks()).singleElement().satisfies(s -> assertThat(s.rank() + " " + s.host()).isEqualTo("3 10.0.0.1"));

        HangDetector.Verdict frozen = detector.observe(RasSamples.allReduce(231, 231, 231, 181), T0.plusSeconds(150));
        assertThat(detector.observe(RasSamples.allReduce(231, 231, 231, 181), T0.plusSeconds(200)).state()).isNotEqualTo(HangDetector.State.STALLED);
        HangDetector.Verdict stalled = detector.observe(RasSamples.allReduce(231, 231, 231, 181), T0.plusSeconds(211));
        assertThat(frozen.state()).isEqualTo(HangDetector.State.LAGGING);
        assertThat(stalled.state()).isEqualTo(HangDetector.State.STALLED);
        assertThat(stalled.message()).startsWith("no collective count moved for 61 s: rank 3 on 10.0.0.1 (process 1524347, GPU 3): AllReduce launched up to 181 while other ranks are at 231");
    }

    @Test
    void a512RankReportIsReadWhole() {
        String json = RasSamples.json(512, rank -> rank == 300 ? 9 : 10);

        RasReport report = RasJson.parse(json);

        assertThat(json.length()).isGreaterThan(250_000);
        assertThat(report.communicators().getFirst().operations().get("AllReduce")).extracting(g -> g.count() + "x" + g.size())
                .containsExactly("9x1", "10x511");
    }
}
