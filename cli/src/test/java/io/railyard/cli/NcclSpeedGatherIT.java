package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.railyard.diagnose.inspector.InspectorRecord;
import io.railyard.diagnose.inspector.IntervalSpeeds;
import io.railyard.diagnose.inspector.JobSpeedLine;
import io.railyard.diagnose.inspector.RankSummary;
import io.railyard.diagnose.inspector.SpeedGather;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 64-rank job's speeds gathered over loopback: the first pod's nccl-speed as its own process, reading its own
 * Inspector files, and 63 ranks sending their interval summaries to it as their sidecars do, rank 17 at 60% speed.
 */
class NcclSpeedGatherIT {
    private static final Pattern GATHER = Pattern.compile("gathering the job's ranks on port (\\d+)");

    @TempDir
    Path dir;

    /** A record of the README's format (v4.0) of one rank's process. */
    private static String record(int rank, double busBw, int sn) {
        return String.format(Locale.ROOT, "{\"header\":{\"id\":\"0x7f8c496ae9f661\",\"rank\":%d,\"n_ranks\":512,\"nnodes\":64},"
                + "\"metadata\":{\"inspector_output_format_version\":\"v4.0\",\"git_rev\":\"\",\"rec_mechanism\":\"profiler_plugin\","
                + "\"dump_timestamp_us\":%d,\"hostname\":\"llama-%d\",\"pid\":1639453},\"coll_perf\":{\"coll\":\"AllReduce\",\"coll_sn\":%d,"
                + "\"coll_msg_size_bytes\":1073741824,\"coll_exec_time_us\":%d,\"coll_algobw_gbs\":%.6f,\"coll_busbw_gbs\":%.6f,"
                + "\"coll_timing_source\":\"kernel_gpu\"}}", rank, 1748030377748202L + sn, rank / 8, sn, (int) (2.7e6 / busBw), busBw * 0.5, busBw);
    }

    @Test
    void theFirstPodLogsTheJobsMedianAndNamesTheSlowRankAfterThreeIntervals() throws Exception {
        Path rankZero = Files.createDirectories(dir.resolve("rank-0"));
        Path file = rankZero.resolve("llama-0-pid1639453.log");
        Files.writeString(file, "");
        List<String> command = List.of(ProcessHandle.current().info().command().orElse("java"), "-cp", System.getProperty("java.class.path"),
                "io.railyard.cli.Railyard", "nccl-speed", "--dir", rankZero.toString(), "--interval", "1", "--listen", "127.0.0.1:0",
                "--trainingjob", "llama", "--rank", "0", "--gather", "127.0.0.1:0", "--ranks", "64", "--slow-percent", "80", "--windows", "3");
        Process process = new ProcessBuilder(command).start();
        AtomicInteger port = new AtomicInteger();
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread.ofVirtual().start(() -> read(process, true, lines, port));
        Thread.ofVirtual().start(() -> read(process, false, lines, port));
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> port.get() > 0);
            int sn = 0;
            for (int interval = 0; interval < 8 && slowFor(lines, "17") < 3; interval++) {
                StringBuilder records = new StringBuilder();
                for (int i = 0; i < 50; i++) {
                    records.append(record(0, 390 + i % 3, sn++)).append('\n');
                }
                Files.writeString(file, records, StandardOpenOption.APPEND);
                for (int rank = 1; rank < 64; rank++) {
                    IntervalSpeeds speeds = new IntervalSpeeds();
                    for (int i = 0; i < 50; i++) {
                        speeds.add(InspectorRecord.parse(record(rank * 8, rank == 17 ? 234 : 388 + (rank + i) % 5, sn + i)).orElseThrow());
                    }
                    SpeedGather.send("127.0.0.1", port.get(), new RankSummary(String.valueOf(rank), "llama-" + rank, speeds.close()), null,
                            java.time.Instant.now());
                }
                int seen = lines.size();
                await().atMost(Duration.ofSeconds(5)).until(() -> lines.size() > seen);
            }

            JobSpeedLine line = JobSpeedLine.last(String.join("\n", lines)).orElseThrow();
            assertThat(line.reporting()).isEqualTo(64);
            assertThat(line.collective() + " " + line.size()).isEqualTo("AllReduce 1 GiB");
            assertThat(line.busBandwidthGbps()).isBetween(388.0, 392.0);
            assertThat(line.slow()).singleElement().satisfies(slow -> {
                assertThat(slow.rank()).isEqualTo("17");
                assertThat(slow.host()).isEqualTo("llama-17");
                assertThat(slow.percent()).isBetween(59.0, 61.0);
                assertThat(slow.slowFor()).isGreaterThanOrEqualTo(3);
            });
        } finally {
            process.destroy();
            assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    /** A record of one process of an 8-GPU pod: its rank in a communicator of {@code ranks}, its own pid. */
    private static String processRecord(String comm, int rank, int ranks, int pod, int gpu, double busBw, long bytes, int sn) {
        return String.format(Locale.ROOT, "{\"header\":{\"id\":\"%s\",\"rank\":%d,\"n_ranks\":%d,\"nnodes\":%d},"
                + "\"metadata\":{\"inspector_output_format_version\":\"v4.0\",\"git_rev\":\"\",\"rec_mechanism\":\"profiler_plugin\","
                + "\"dump_timestamp_us\":%d,\"hostname\":\"llama-%d\",\"pid\":%d},\"coll_perf\":{\"coll\":\"AllReduce\",\"coll_sn\":%d,"
                + "\"coll_msg_size_bytes\":%d,\"coll_exec_time_us\":%d,\"coll_algobw_gbs\":%.6f,\"coll_busbw_gbs\":%.6f,"
                + "\"coll_timing_source\":\"kernel_gpu\"}}", comm, rank, ranks, ranks / 8 == 0 ? 1 : ranks / 8, 1748030377748202L + sn, pod,
                40000 + pod * 100 + gpu, sn, bytes, (int) (bytes / (busBw * 1e3)), busBw * 0.5, busBw);
    }

    private static Process sidecar(Path dir, String... args) throws java.io.IOException {
        List<String> command = new java.util.ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
                System.getProperty("java.class.path"), "io.railyard.cli.Railyard", "nccl-speed", "--dir", dir.toString(), "--interval", "1",
                "--listen", "127.0.0.1:0", "--trainingjob", "llama", "--gpus-per-node", "8"));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(false).start();
    }

    @Test
    void oneSlowGpuAmongEightIsNamedByItsGlobalRankPodGpuAndNic() throws Exception {
        // eight 8-GPU pods, each sidecar its own process reading its pod's eight Inspector files (one per process, as the
        // plugin writes them); global rank 29 (pod 3, GPU 5) runs at half speed, its seven neighbours at full speed
        List<Path> dirs = new java.util.ArrayList<>();
        for (int pod = 0; pod < 8; pod++) {
            Path podDir = Files.createDirectories(dir.resolve("pod-" + pod));
            Files.writeString(podDir.resolve(".gpu-nics"), "0=mlx5_0:1,1=mlx5_1:1,2=mlx5_2:1,3=mlx5_3:1,4=mlx5_4:1,5=mlx5_5:1,6=mlx5_6:1,7=mlx5_7:1\n");
            dirs.add(podDir);
        }
        Process first = sidecar(dirs.getFirst(), "--rank", "0", "--gather", "127.0.0.1:0", "--ranks", "8", "--slow-percent", "80", "--windows", "3");
        AtomicInteger port = new AtomicInteger();
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread.ofVirtual().start(() -> read(first, true, lines, port));
        Thread.ofVirtual().start(() -> read(first, false, lines, port));
        List<Process> others = new java.util.ArrayList<>();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> port.get() > 0);
            for (int pod = 1; pod < 8; pod++) {
                others.add(sidecar(dirs.get(pod), "--rank", String.valueOf(pod), "--report-to", "127.0.0.1:" + port.get()));
            }
            int sn = 0;
            for (int interval = 0; interval < 20 && !slowGpuNamed(lines); interval++) {
                for (int pod = 0; pod < 8; pod++) {
                    for (int gpu = 0; gpu < 8; gpu++) {
                        int rank = pod * 8 + gpu;
                        StringBuilder records = new StringBuilder();
                        for (int i = 0; i < 20; i++) {
                            double busBw = (rank == 29 ? 0.5 : 1.0) * (388 + (rank + i) % 5);
                            records.append(processRecord("0x7f8c496ae9f661", rank, 64, pod, gpu, busBw, 1L << 30, sn + i)).append('\n');
                            // the pod's tensor-parallel group: the process's rank in it is its GPU, not its global rank
                            records.append(processRecord("0x1c0de" + pod, gpu, 8, pod, gpu, 2 * busBw, 16L << 20, sn + i)).append('\n');
                        }
                        Path file = dirs.get(pod).resolve("llama-" + pod + "-pid" + (40000 + pod * 100 + gpu) + ".log");
                        Files.writeString(file, records, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                    }
                }
                sn += 20;
                int seen = lines.size();
                await().atMost(Duration.ofSeconds(10)).until(() -> lines.size() > seen);
            }

            JobSpeedLine line = JobSpeedLine.last(String.join("\n", lines)).orElseThrow();
            assertThat(line.collective() + " " + line.size()).isEqualTo("AllReduce 1 GiB");
            assertThat(line.busBandwidthGbps()).as("the job's median, over the pods' medians").isBetween(388.0, 392.0);
            assertThat(line.slow()).singleElement().satisfies(slow -> {
                assertThat(slow.globalRank()).isEqualTo(29);
                assertThat(slow.rank()).as("its pod's node rank").isEqualTo("3");
                assertThat(slow.gpu()).isEqualTo(5);
                assertThat(slow.nic()).isEqualTo("mlx5_5:1");
                assertThat(slow.percent()).isBetween(48.0, 52.0);
                assertThat(slow.slowFor()).isGreaterThanOrEqualTo(3);
            });
        } finally {
            others.forEach(Process::destroy);
            first.destroy();
            assertThat(first.waitFor(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static boolean slowGpuNamed(List<String> lines) {
        return JobSpeedLine.last(String.join("\n", lines)).map(l -> l.slow().stream().anyMatch(s -> Integer.valueOf(29).equals(s.globalRank())
                && s.slowFor() >= 3)).orElse(false);
    }

    private static int slowFor(List<String> lines, String rank) {
        Optional<JobSpeedLine> line = JobSpeedLine.last(String.join("\n", lines));
        return line.flatMap(l -> l.slow().stream().filter(s -> s.rank().equals(rank)).findFirst()).map(JobSpeedLine.SlowRank::slowFor).orElse(0);
    }

    private static void read(Process process, boolean stdout, List<String> lines, AtomicInteger port) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(stdout ? process.getInputStream() : process.getErrorStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                Matcher m = GATHER.matcher(line);
                if (m.find()) {
                    port.set(Integer.parseInt(m.group(1)));
                }
                if (stdout) {
                    lines.add(line);
                }
            }
        } catch (java.io.IOException e) {
            // the process ended
        }
    }
}
