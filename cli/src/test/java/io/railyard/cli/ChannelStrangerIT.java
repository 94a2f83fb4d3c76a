package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.railyard.diagnose.channel.ChannelSeal;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rank 0's attempt barrier as a stranger on the pod's network meets it: railyard await-rank as its own processes over
 * loopback, with the job's key; forged, out-of-range and replayed reports, and 200 clients that connect and say
 * nothing. Only the gang's real ranks let it through.
 */
class ChannelStrangerIT {
    private static final String JOB_UID = "7d9c1f2e-5a3b-4e61-9f0a-1b2c3d4e5f60";

    @TempDir
    Path dir;

    private Process rank(int rank, int port, Path key) throws IOException {
        Path pod = Files.createDirectories(dir.resolve("pod-" + rank));
        Files.writeString(pod.resolve("attempt"), "0\n"); // each ran attempt 0; the operator moved the gang to attempt 1
        Files.writeString(pod.resolve("labels"), "railyard.io/attempt=\"1\"\nrailyard.io/job-index=\"" + rank + "\"\n");
        return new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-cp", System.getProperty("java.class.path"),
                "io.railyard.cli.Railyard", "await-rank", "--labels", pod.resolve("labels").toString(), "--attempt-file",
                pod.resolve("attempt").toString(), "--barrier-port", String.valueOf(port), "--nodes", "3", "--master-addr", "127.0.0.1",
                "--channel-key", key.toString(), "--job-uid", JOB_UID, "--poll-ms", "20", "--timeout-seconds", "60")
                .redirectErrorStream(true).redirectOutput(dir.resolve("rank-" + rank + ".log").toFile()).start();
    }

    /** A line written to rank 0 as a stranger would; its answer, or what closed the connection. */
    private static String say(int port, String line) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            out.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
        } catch (IOException e) {
            return "closed: " + e.getMessage();
        }
    }

    @Test
    void onlyTheGangsRealRanksOpenTheGateThoughStrangersForgeReplayAndStall() throws Exception {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        Path key = Files.write(dir.resolve("key"), secret);
        ChannelSeal jobs = ChannelSeal.of(secret, JOB_UID);
        byte[] other = secret.clone();
        other[0] ^= 1;
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Process rank0 = rank(0, port, key);
        List<Socket> silent = new ArrayList<>();
        List<Process> others = new ArrayList<>();
        try {
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
                new Socket("127.0.0.1", port).close();
                return true;
            });
            for (int i = 0; i < 200; i++) { // connected, saying nothing
                silent.add(new Socket("127.0.0.1", port));
            }
            List<String> answers = List.of(
                    say(port, "attempt 1 rank 7"), // unsealed, as before the key: the old way to open the gate
                    say(port, "attempt 1 rank 999"),
                    say(port, ChannelSeal.of(other, JOB_UID).seal("attempt 1 rank 1", 1)), // another key
                    say(port, ChannelSeal.of(secret, "another-job").seal("attempt 1 rank 1", 1)), // another job's
                    say(port, jobs.seal("attempt 0 rank 1", 0)), // a real report of the last attempt, replayed
                    say(port, jobs.seal("attempt 1 rank 2", 0)), // this attempt's words under the last one's seal
                    say(port, "x".repeat(10_000))); // a long line
            say(port, jobs.seal("attempt 1 rank 7", 1)); // even with the key: a rank the gang does not have

            assertThat(answers).allSatisfy(answer -> assertThat(answer).isNotEqualTo("go"));
            assertThat(rank0.isAlive()).as("the gate holds").isTrue();

            others.add(rank(1, port, key));
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).until(rank0::isAlive);
            others.add(rank(2, port, key));
            assertThat(others.get(1).waitFor(30, TimeUnit.SECONDS)).isTrue();
            long lastRankPassed = System.nanoTime();
            assertThat(rank0.waitFor(5, TimeUnit.SECONDS)).isTrue();
            long gateLetGo = System.nanoTime();

            assertThat(Duration.ofNanos(gateLetGo - lastRankPassed)).as("rank 0 passes with its last rank").isLessThan(Duration.ofSeconds(1));
            assertThat(rank0.exitValue()).isZero();
            assertThat(others.getFirst().waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(others).allSatisfy(p -> assertThat(p.exitValue()).isZero());
            String log = Files.readString(dir.resolve("rank-0.log"));
            assertThat(log).contains("await-rank: all 3 ranks are at attempt 1");
            List<String> refused = log.lines().filter(line -> line.contains("refused connections")).toList();
            assertThat(refused).as("the first at once, the rest when the gate opens: not a line a stranger").hasSize(2);
            assertThat(refused.getLast()).containsPattern("by reason: \\{rank=1, seal=6, slow-or-long=20\\d\\}");
        } finally {
            for (Socket socket : silent) {
                socket.close();
            }
            rank0.destroyForcibly();
            others.forEach(Process::destroyForcibly);
        }
    }

    /** A pod's summary of one AllReduce at this speed, as its sidecar sends it. */
    private static io.railyard.diagnose.inspector.RankSummary summary(String rank, double gbps) {
        var key = new io.railyard.diagnose.inspector.IntervalSpeeds.Key("AllReduce", "1 GiB", "0x7f8c496ae9f661");
        return new io.railyard.diagnose.inspector.RankSummary(rank, "llama-" + rank,
                List.of(new io.railyard.diagnose.inspector.IntervalSpeeds.Speed(key, gbps, gbps * 0.95, 0.0055, 200)));
    }

    private static void send(int port, String line) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            // refused or cut: a stranger does not care
        }
    }

    @Test
    void theSpeedGathererRefusesForgedStaleAndOutOfRangeSummariesAndAFloodLeavesItsHeapAndTheNextIntervalAlone() throws Exception {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        Path key = Files.write(dir.resolve("key"), secret);
        ChannelSeal jobs = ChannelSeal.of(secret, JOB_UID);
        Path dump = Files.createDirectories(dir.resolve("dump"));
        ProcessBuilder builder = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-cp",
                System.getProperty("java.class.path"), "io.railyard.cli.Railyard", "nccl-speed", "--dir", dump.toString(), "--interval", "1",
                "--listen", "127.0.0.1:0", "--trainingjob", "llama", "--rank", "0", "--gather", "127.0.0.1:0", "--ranks", "2",
                "--channel-key", key.toString(), "--job-uid", JOB_UID).redirectOutput(dir.resolve("lines").toFile())
                .redirectError(dir.resolve("err").toFile());
        builder.environment().put("JAVA_TOOL_OPTIONS", "-XX:+UseSerialGC -Xmx48m -Xss256k -XX:TieredStopAtLevel=1 -XX:+ExitOnOutOfMemoryError");
        Process gatherer = builder.start();
        try {
            java.util.regex.Matcher ports = await().atMost(Duration.ofSeconds(30)).until(() -> java.util.regex.Pattern.compile(
                    "serving /metrics on port (\\d+), gathering the job's ranks on port (\\d+)").matcher(Files.readString(dir.resolve("err"))),
                    java.util.regex.Matcher::find);
            int metrics = Integer.parseInt(ports.group(1));
            int gather = Integer.parseInt(ports.group(2));
            java.time.Instant now = java.time.Instant.now();
            send(gather, summary("1", 1.0).toJson() + " at=" + now.toEpochMilli()); // forged: rank 1 at 1 GB/s, no seal
            send(gather, jobs.seal(summary("1", 1.0).toJson() + " at=" + now.minus(Duration.ofMinutes(10)).toEpochMilli(), 0)); // replayed
            send(gather, jobs.seal(summary("5", 1.0).toJson() + " at=" + now.toEpochMilli(), 0)); // a rank the job does not have

            long flood = System.nanoTime();
            byte[] megabyte = new byte[1 << 20];
            java.util.Arrays.fill(megabyte, (byte) 'x');
            try (var strangers = java.util.concurrent.Executors.newFixedThreadPool(200)) {
                for (int i = 0; i < 5_000; i++) {
                    strangers.submit(() -> {
                        try (Socket socket = new Socket("127.0.0.1", gather)) {
                            socket.getOutputStream().write(megabyte);
                        } catch (IOException e) {
                            // cut off by the gatherer: what a flood gets
                        }
                    });
                }
            }
            double floodSeconds = (System.nanoTime() - flood) / 1e9;

            long honest = System.nanoTime();
            var line = await().atMost(Duration.ofSeconds(20)).until(() -> {
                SpeedGatherSend.sealed(gather, jobs, summary("1", 390.0));
                return io.railyard.diagnose.inspector.JobSpeedLine.last(Files.readString(dir.resolve("lines")));
            }, last -> last.isPresent() && last.get().reporting() == 2 && last.get().busBandwidthGbps() != null).orElseThrow();
            double honestSeconds = (System.nanoTime() - honest) / 1e9;

            assertThat(gatherer.isAlive()).as("its 48 MiB heap held").isTrue();
            assertThat(line.busBandwidthGbps()).isEqualTo(390.0);
            assertThat(line.slow()).as("no forged slow rank").isEmpty();
            String exposition = new String(new java.net.URI("http://127.0.0.1:" + metrics + "/metrics").toURL().openStream().readAllBytes(),
                    StandardCharsets.UTF_8);
            assertThat(exposition).contains("railyard_channel_rejected_total{reason=\"seal\"} 1.0", "railyard_channel_rejected_total{reason=\"stale\"} 1.0",
                    "railyard_channel_rejected_total{reason=\"rank\"} 1.0");
            long flooded = exposition.lines().filter(l -> l.startsWith("railyard_channel_rejected_total"))
                    .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum() - 3;
            assertThat(flooded).as("the flood's connections refused").isGreaterThanOrEqualTo(4_900);
            Process heap = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), String.valueOf(gatherer.pid()),
                    "GC.heap_info").redirectErrorStream(true).start();
            String heapInfo = new String(heap.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            System.out.printf("flood: 5,000 connections of 1 MiB in %.1f s, %d refused; the honest summary in the job's line %.1f s after it"
                    + " was first sent; heap after: %s%n", floodSeconds, flooded, honestSeconds,
                    String.join("; ", heapInfo.lines().filter(l -> l.contains("total")).map(l -> l.strip().replaceAll(" \\[.*", "")).toList()));
        } finally {
            gatherer.destroyForcibly();
        }
    }

    /** A rank's sidecar sending its summary as it does, sealed and stamped. */
    private static final class SpeedGatherSend {
        static void sealed(int port, ChannelSeal seal, io.railyard.diagnose.inspector.RankSummary summary) {
            try {
                io.railyard.diagnose.inspector.SpeedGather.send("127.0.0.1", port, summary, seal, java.time.Instant.now());
            } catch (IOException e) {
                // the next look sends again
            }
        }
    }
}
