package io.railyard.diagnose.logs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * An analyzer does nothing with a line its interest passes over: each analyzer given only the lines its words or test
 * take reports what it reports given every line, on every shipped log and corpus fragment, whole and with its lines cut.
 */
class InterestsTest {

    @Test
    void eachAnalyzerGivenOnlyTheLinesItsInterestTakesReportsTheSame() throws IOException {
        Random random = new Random(11);
        int files = 0;
        try (Stream<Path> paths = Files.walk(Analyzed.TESTDATA.resolve("logs"))) {
            for (Path file : paths.filter(Files::isRegularFile).filter(f -> !f.toString().endsWith(".gz")).toList()) {
                List<String> lines = List.of(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1).split("\n"));
                assertSameReports(file.toString(), lines);
                List<String> cut = new ArrayList<>(); // pastes are cut anywhere: the start of a line lost, or its end
                for (String line : lines) {
                    int at = line.isEmpty() ? 0 : random.nextInt(line.length());
                    cut.add(random.nextBoolean() ? line.substring(at) : line.substring(0, at));
                }
                assertSameReports(file + " cut", cut);
                files++;
            }
        }
        assertThat(files).isGreaterThan(200);
    }

    @Test
    void aLineWithoutAnyAnalyzersWordsReachesOnlyThoseWhoseTestTakesIt() {
        Findings findings = new Findings("test.log");
        Map<String, Analyzer> analyzers = LogAnalysis.analyzers(findings);
        Interests interests = new Interests(List.copyOf(analyzers.values()));
        for (String text : List.of("[rank3]: epoch 3 step 1200 loss 2.3114 lr 0.00031 tokens/s 181230",
                "1048576        262144     float     sum      -1   4172.1  251.33  471.24      0   4165.9  251.71  471.95      0",
                "[  12.345678] mlx5_core 0000:3b:00.0: mlx5_cmd_check:810:(pid 1): CREATE_MKEY(0x200) op_mod(0x0) failed, status bad resource(0x5)")) {
            interests.offer(line(text, 1));
        }
        assertThat(analyzers.get("nccl-tests").hits()).as("a row of nccl-tests' table, taken by its test").isEqualTo(1);
        assertThat(analyzers.get("kernel").hits()).as("a dmesg line").isEqualTo(1);
        assertThat(analyzers.values().stream().mapToLong(Analyzer::hits).sum()).isEqualTo(2);
    }

    /** Every analyzer given every line against every analyzer given the lines of its interest. */
    private static void assertSameReports(String name, List<String> lines) {
        Findings everyFindings = new Findings(name);
        Findings takenFindings = new Findings(name);
        Map<String, Analyzer> every = LogAnalysis.analyzers(everyFindings);
        Map<String, Analyzer> taken = LogAnalysis.analyzers(takenFindings);
        for (int n = 0; n < lines.size(); n++) {
            Line line = line(lines.get(n), n + 1);
            for (String kind : every.keySet()) {
                every.get(kind).accept(line);
                Analyzer.Interest interest = taken.get(kind).interest();
                if (interest.words().stream().anyMatch(line::contains) || interest.also().test(line)) {
                    taken.get(kind).accept(line);
                }
            }
        }
        LogReport.Builder everyReport = new LogReport.Builder(name, everyFindings, OptionalDouble.empty());
        LogReport.Builder takenReport = new LogReport.Builder(name, takenFindings, OptionalDouble.empty());
        every.values().forEach(analyzer -> analyzer.finish(everyReport));
        taken.values().forEach(analyzer -> analyzer.finish(takenReport));
        for (String kind : every.keySet()) {
            assertThat(taken.get(kind).hits()).as(kind + " hits on " + name).isEqualTo(every.get(kind).hits());
        }
        assertThat(takenReport.build()).as(name).isEqualTo(everyReport.build());
    }

    private static Line line(String text, long number) {
        Line line = new Line();
        line.reset(text, 0, text.length(), number);
        return line;
    }
}
