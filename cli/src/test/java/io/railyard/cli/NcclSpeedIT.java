package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * railyard nccl-speed as its own process, reading Inspector files (the README record's format, v4.0) that a test
 * writes as NCCL would: growing, a last line half written, a file truncated and written again.
 */
class NcclSpeedIT {
    private static final Pattern PORT = Pattern.compile("serving /metrics on port (\\d+)");

    @TempDir
    Path dir;

    private static String record(int rank, double busBw, int sn) {
        return String.format(Locale.ROOT, "{\"header\":{\"id\":\"0x7f8c496ae9f661\",\"rank\":%d,\"n_ranks\":8,\"nnodes\":1,\"comm_name\":\"DP Group 0\"},"
                + "\"metadata\":{\"inspector_output_format_version\":\"v4.0\",\"git_rev\":\"\",\"rec_mechanism\":\"profiler_plugin\","
                + "\"dump_timestamp_us\":%d,\"hostname\":\"gpu-node-a\",\"pid\":1639453},\"coll_perf\":{\"coll\":\"AllReduce\",\"coll_sn\":%d,"
                + "\"coll_msg_size_bytes\":1073741824,\"coll_exec_time_us\":5000,\"coll_algobw_gbs\":%.6f,\"coll_busbw_gbs\":%.6f}}",
                rank, 1748030377748202L + sn, sn, busBw * 0.57, busBw);
    }

    private static double sample(String metrics, String name, String... labels) {
        for (String line : metrics.split("\n")) {
            if (line.startsWith(name) && java.util.Arrays.stream(labels).allMatch(line::contains)) {
                Matcher value = Pattern.compile(" ([0-9.eE+-]+)$").matcher(line);
                if (value.find()) {
                    return Double.parseDouble(value.group(1));
                }
            }
        }
        return Double.NaN;
    }

    @Test
    void growingTruncatedAndHalfWrittenFilesAreReadAndEachIntervalServed() throws Exception {
        Path a = dir.resolve("gpu-node-a-pid1639453.log");
        Path b = dir.resolve("gpu-node-a-pid1639454.log");
        StringBuilder first = new StringBuilder();
        for (int sn = 0; sn < 10; sn++) {
            first.append(record(0, 400, sn)).append('\n');
        }
        Files.writeString(a, first);
        String half = record(1, 400, 99);
        Files.writeString(b, half.substring(0, 100)); // NCCL is in the middle of this line

        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
                System.getProperty("java.class.path"), "io.railyard.cli.Railyard", "nccl-speed", "--dir", dir.toString(), "--interval", "0.5",
                "--listen", "127.0.0.1:0", "--trainingjob", "llama", "--rank", "0"));
        Process process = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        AtomicInteger port = new AtomicInteger();
        Thread.ofVirtual().start(() -> {
            try (BufferedReader err = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = err.readLine()) != null; ) {
                    Matcher m = PORT.matcher(line);
                    if (m.find()) {
                        port.set(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (java.io.IOException e) {
                // the process ended
            }
        });
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> port.get() > 0);
            HttpClient http = HttpClient.newHttpClient();
            java.util.concurrent.Callable<String> scrape = () -> http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port.get()
                    + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                String metrics = scrape.call();
                assertThat(sample(metrics, "railyard_nccl_bus_bandwidth_gbps{", "collective=\"AllReduce\"", "size=\"1 GiB\"",
                        "comm=\"DP Group 0\"", "trainingjob=\"llama\"", "rank=\"0\"")).isEqualTo(400.0);
                assertThat(sample(metrics, "railyard_nccl_inspector_records_total")).isEqualTo(10.0);
                assertThat(sample(metrics, "railyard_nccl_inspector_parse_errors_total")).as("a half-written line is no error").isZero();
            });

            Files.writeString(b, half.substring(100) + "\n", StandardOpenOption.APPEND); // the line's end
            Files.writeString(a, record(0, 200, 10) + "\n" + record(0, 200, 11) + "\n" + record(0, 200, 12) + "\n"); // truncated, written anew
            Files.writeString(b, "{\"header\":{\"rank\":1} this is no record\n", StandardOpenOption.APPEND);
            Files.writeString(b, "x".repeat(3 << 20) + "\n" + record(1, 300, 100) + "\n", StandardOpenOption.APPEND); // 3 MiB of one line: dropped

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                String metrics = scrape.call();
                assertThat(sample(metrics, "railyard_nccl_inspector_records_total")).isEqualTo(15.0);
                assertThat(sample(metrics, "railyard_nccl_inspector_parse_errors_total")).isEqualTo(2.0);
                assertThat(sample(metrics, "railyard_nccl_bus_bandwidth_p10_gbps{")).isEqualTo(200.0);
            });
        } finally {
            process.destroy();
            assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(process.exitValue()).isZero();
    }
}
