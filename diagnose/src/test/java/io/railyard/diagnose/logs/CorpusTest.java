package io.railyard.diagnose.logs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every labelled fragment of testdata/logs/corpus (real logs from public threads, README.md there says where each is
 * from): each label is checked, one test a file.
 */
class CorpusTest {
    static final String DIR = "logs/corpus/";

    /** The README's rows: file and labels ({@code key=value; ...}). */
    static Stream<Arguments> samples() throws IOException {
        List<Arguments> rows = new ArrayList<>();
        for (String line : Files.readAllLines(Analyzed.TESTDATA.resolve(DIR + "README.md"))) {
            String[] cells = line.split("\\|");
            if (cells.length < 4 || !cells[1].strip().contains(".") || cells[1].strip().equals("file")) {
                continue;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            for (String label : cells[3].split(";")) {
                String[] kv = label.strip().split("=", 2);
                if (kv.length == 2) {
                    labels.put(kv[0].strip(), kv[1].strip());
                }
            }
            rows.add(Arguments.of(cells[1].strip(), labels));
        }
        return rows.stream();
    }

    /** The report's value for a label's key, as the README writes it. */
    static String actual(LogReport report, String key) {
        NcclSummary nccl = report.nccl();
        return switch (key) {
            case "kind" -> report.kind();
            case "transport" -> nccl == null ? "unknown" : nccl.transport();
            case "fallback" -> String.valueOf(nccl != null && nccl.fallback());
            case "plugin" -> nccl == null || nccl.plugin() == null ? "none" : nccl.plugin();
            case "bootstrap" -> nccl == null ? null : nccl.bootstrapInterface();
            case "gdr" -> nccl == null || nccl.gdr() == null ? "unknown" : String.valueOf(nccl.gdr());
            default -> throw new IllegalArgumentException("unknown label " + key);
        };
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void everyLabelOfTheSampleHolds(String file, Map<String, String> labels) {
        LogReport report = Analyzed.file(DIR + file);

        for (Map.Entry<String, String> label : labels.entrySet()) {
            if (label.getKey().equals("findings")) {
                List<String> ids = report.findings().stream().map(Finding::id).toList();
                assertThat(ids).as(file + " findings").containsAll(List.of(label.getValue().split(",\\s*")));
            } else {
                assertThat(actual(report, label.getKey())).as(file + " " + label.getKey()).isEqualTo(label.getValue());
            }
        }
    }

    /** The share of all the corpus's labels the analysis gets right: the figure the per-sample tests make 100 %. */
    @org.junit.jupiter.api.Test
    void shareOfLabelsRight() throws IOException {
        int right = 0;
        int total = 0;
        for (Arguments row : samples().toList()) {
            String file = (String) row.get()[0];
            @SuppressWarnings("unchecked")
            Map<String, String> labels = (Map<String, String>) row.get()[1];
            LogReport report = Analyzed.file(DIR + file);
            for (Map.Entry<String, String> label : labels.entrySet()) {
                if (label.getKey().equals("findings")) {
                    List<String> ids = report.findings().stream().map(Finding::id).toList();
                    for (String id : label.getValue().split(",\\s*")) {
                        total++;
                        right += ids.contains(id) ? 1 : 0;
                    }
                } else {
                    total++;
                    right += label.getValue().equals(actual(report, label.getKey())) ? 1 : 0;
                }
            }
        }
        System.out.printf("corpus: %d of %d labels right (%.1f%%)%n", right, total, 100.0 * right / total);
        assertThat(100.0 * right / total).isGreaterThanOrEqualTo(95.0);
    }
}
