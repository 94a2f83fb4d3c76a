package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** railyard nccl-watch as its own process against a fake RAS replaying real reports (testdata/ras), ended by SIGTERM. */
class NcclWatchIT {
    private static final Path RAS = HelmTool.REPO.resolve("testdata/ras");

    private static String report(String name) throws Exception {
        return Files.readString(RAS.resolve(name));
    }

    private record Watch(Process process, List<String> lines) {}

    private static Watch watch(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
                System.getProperty("java.class.path"), "io.railyard.cli.Railyard", "nccl-watch"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        Thread.ofVirtual().start(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (java.io.IOException e) {
                // the process ended
            }
        });
        return new Watch(process, lines);
    }

    private static List<String> states(List<String> lines) throws Exception {
        List<String> states = new ArrayList<>();
        for (String line : List.copyOf(lines)) {
            states.add(new ObjectMapper().readTree(line).path("state").asText());
        }
        return states;
    }

    @Test
    void anOlderNcclsTextReportsGoFromHealthyToStalledThenUnavailableAndSigtermExitsZero() throws Exception {
        List<String> script = new ArrayList<>(List.of(report("ras-text-healthy-during-timeout-2.26.2-01.txt")));
        script.addAll(Collections.nCopies(12, report("ras-text-straggler-2.26.2-01.txt")));
        script.add(FakeRas.CLOSE);
        try (FakeRas ras = new FakeRas(false, script)) {
            Watch watch = watch("--ras", ras.address(), "--interval", "0.2", "--stall-after", "1", "-o", "json");

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(states(watch.lines()))
                    .containsExactly("healthy", "stalled", "unavailable"));
            JsonNode stalled = new ObjectMapper().readTree(watch.lines().get(1));
            assertThat(stalled.path("ncclVersion").isNull()).as("the cut report has no version line").isTrue();
            assertThat(stalled.path("ranks").get(0).path("reason").asText())
                    .isEqualTo("30 ranks (not named by the report): AllGather launched up to 640 while other ranks are at 641");
            assertThat(new ObjectMapper().readTree(watch.lines().get(2)).path("message").asText()).startsWith("RAS at " + ras.address() + " does not answer");
            assertThat(ras.commands()).contains("SET FORMAT json", "TIMEOUT 5", "VERBOSE STATUS").doesNotContain("STATUS");

            watch.process().destroy(); // SIGTERM
            assertThat(watch.process().waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(watch.process().exitValue()).isZero();
        }
    }

    @Test
    void aJsonSpeakingNcclWithAMissingRankAndTheMissingCommaIsMissing() throws Exception {
        try (FakeRas ras = new FakeRas(true, List.of(report("ras-json-missing-comma-2.28.9-01.json")))) {
            Watch watch = watch("--ras", ras.address(), "--interval", "0.2", "-o", "json");

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(watch.lines()).isNotEmpty());
            JsonNode missing = new ObjectMapper().readTree(watch.lines().getFirst());
            assertThat(missing.path("state").asText()).isEqualTo("missing");
            assertThat(missing.path("ncclVersion").asText()).isEqualTo("2.28.9");
            assertThat(missing.path("ranks").get(0).toString()).isEqualTo("{\"rank\":1,\"host\":\"172.16.64.245\",\"pid\":1524345,\"cudaDev\":1,"
                    + "\"reason\":\"missing from communicator ae94423cfbb2ef4a\"}");
            assertThat(ras.commands()).containsSubsequence("SET FORMAT json", "TIMEOUT 5", "STATUS");
            watch.process().destroy();
            assertThat(watch.process().waitFor(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aServerThatNeverAnswersIsUnavailableAfterTheTimeoutAndPollingGoesOn() throws Exception {
        try (FakeRas ras = new FakeRas(true, List.of(FakeRas.SILENT))) {
            Watch watch = watch("--ras", ras.address(), "--interval", "0.2", "--timeout", "1", "-o", "json");

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(watch.lines()).isNotEmpty());
            JsonNode unavailable = new ObjectMapper().readTree(watch.lines().getFirst());
            assertThat(unavailable.path("state").asText()).isEqualTo("unavailable");
            assertThat(unavailable.path("message").asText()).contains("does not answer", "NCCL_RAS_ENABLE=0");
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(ras.served()).isGreaterThanOrEqualTo(2));
            assertThat(watch.lines()).as("said once").hasSize(1);
            watch.process().destroy();
            assertThat(watch.process().waitFor(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void badOptionsAreOneLineAndExitTwo() throws Exception {
        CommandRun run = CommandRun.of("nccl-watch", "-o", "yaml");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("nccl-watch: --output yaml is not text or json\n");
    }
}
