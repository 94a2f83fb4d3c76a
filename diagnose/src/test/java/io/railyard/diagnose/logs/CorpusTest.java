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

    /** The README's rows: file, labels ({@code key=value; ...}) and batch (each table of the README is one, from 1). */
    static Stream<Arguments> samples() throws IOException {
        List<Arguments> rows = new ArrayList<>();
        int batch = 0;
        for (String line : Files.readAllLines(Analyzed.TESTDATA.resolve(DIR + "README.md"))) {
            String[] cells = line.split("\\|");
            if (cells.length >= 4 && cells[1].strip().equals("file")) {
                batch++;
            }
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
            rows.add(Arguments.of(cells[1].strip(), labels, batch));
        }
        return rows.stream();
    }

    /** The report's value for a label's key, as the README writes it. */
    static String actual(LogReport report, String key) {
        NcclSummary nccl = report.nccl();
        return switch (key) {
            case "kind" -> report.kind();
            case "tool" -> report.tool();
            case "transport" -> nccl == null ? "unknown" : nccl.transport();
            case "fallback" -> String.valueOf(nccl != null && nccl.fallback());
            case "plugin" -> nccl == null || nccl.plugin() == null ? "none" : nccl.plugin();
            case "bootstrap" -> nccl == null ? null : nccl.bootstrapInterface();
            case "gdr" -> nccl == null || nccl.gdr() == null ? "unknown" : String.valueOf(nccl.gdr());
            case "nccl" -> nccl == null ? null : nccl.version();
            case "failed" -> report.torchrun() == null ? null : report.torchrun().failures().stream()
                    .map(f -> f.rank() != null ? String.valueOf(f.rank()) : "local " + f.localRank()).sorted().collect(java.util.stream.Collectors.joining(","));
            case "exit" -> report.torchrun() == null ? null : report.torchrun().failures().stream().findFirst()
                    .map(f -> f.signal() != null ? f.signal() : String.valueOf(f.exitCode())).orElse(null);
            default -> throw new IllegalArgumentException("unknown label " + key);
        };
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void everyLabelOfTheSampleHolds(String file, Map<String, String> labels, int batch) {
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

    /** The share of the corpus's labels the analysis gets right, in all and batch by batch: the figure the per-sample tests make 100 %. */
    @org.junit.jupiter.api.Test
    void shareOfLabelsRight() throws IOException {
        Map<Integer, int[]> byBatch = new java.util.TreeMap<>();
        for (Arguments row : samples().toList()) {
            String file = (String) row.get()[0];
            @SuppressWarnings("unchecked")
            Map<String, String> labels = (Map<String, String>) row.get()[1];
            int[] counts = byBatch.computeIfAbsent((Integer) row.get()[2], b -> new int[2]);
            LogReport report = Analyzed.file(DIR + file);
            for (Map.Entry<String, String> label : labels.entrySet()) {
                if (label.getKey().equals("findings")) {
                    List<String> ids = report.findings().stream().map(Finding::id).toList();
                    for (String id : label.getValue().split(",\\s*")) {
                        counts[1]++;
                        counts[0] += ids.contains(id) ? 1 : 0;
                    }
                } else {
                    counts[1]++;
                    counts[0] += label.getValue().equals(actual(report, label.getKey())) ? 1 : 0;
                }
            }
        }
        int right = byBatch.values().stream().mapToInt(c -> c[0]).sum();
        int total = byBatch.values().stream().mapToInt(c -> c[1]).sum();
        Map<Integer, String> firstRuns = firstRuns();
        byBatch.forEach((batch, c) -> System.out.printf("corpus batch %d: first run %s; now %d of %d labels right (%.1f%%)%n", batch,
                firstRuns.getOrDefault(batch, "not recorded"), c[0], c[1], 100.0 * c[0] / c[1]));
        System.out.printf("corpus: %d of %d labels right (%.1f%%)%n", right, total, 100.0 * right / total);
        assertThat(100.0 * right / total).isGreaterThanOrEqualTo(95.0);
    }

    /** What each batch's paragraph in the README says of its first run: "31 of their 32 labels", or every label right. */
    static Map<Integer, String> firstRuns() throws IOException {
        Map<Integer, String> firstRuns = new java.util.TreeMap<>();
        java.util.regex.Pattern share = java.util.regex.Pattern.compile("(\\d+) of (?:its |their )?(\\d+) (?:of its )?labels");
        StringBuilder paragraph = new StringBuilder();
        int batch = 0;
        for (String line : Files.readAllLines(Analyzed.TESTDATA.resolve(DIR + "README.md"))) {
            if (line.startsWith("| file |")) {
                batch++;
                String text = paragraph.toString().replaceAll("\\s+", " ");
                java.util.regex.Matcher matcher = share.matcher(text.substring(Math.max(0, text.indexOf("first run"))));
                if (text.contains("first run") && matcher.find()) {
                    int right = Integer.parseInt(matcher.group(1));
                    int total = Integer.parseInt(matcher.group(2));
                    firstRuns.put(batch, String.format(java.util.Locale.ROOT, "%d of %d (%.1f%%)", right, total, 100.0 * right / total));
                } else if (text.contains("every one of their labels was right") || text.matches(".*first run all \\d+ of (?:its|their) labels.*")) {
                    firstRuns.put(batch, "every label right");
                }
                paragraph.setLength(0);
            } else if (!line.startsWith("|")) {
                paragraph.append(line).append(' ');
            }
        }
        return firstRuns;
    }
}
