package io.railyard.diagnose.logs;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalDouble;

/** Runs the analysis on a fixture file or on text, for tests. */
final class Analyzed {
    static final Path TESTDATA = Path.of(System.getProperty("railyard.repo", "..")).resolve("testdata");

    private Analyzed() {}

    static LogReport file(String relative) {
        return file(relative, OptionalDouble.empty());
    }

    static LogReport file(String relative, OptionalDouble lineRate) {
        try (InputStream in = Files.newInputStream(TESTDATA.resolve(relative))) {
            return LogAnalysis.analyze(relative, in, lineRate);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static LogReport text(String text) {
        return bytes(text.getBytes(StandardCharsets.UTF_8), OptionalDouble.empty());
    }

    static LogReport bytes(byte[] bytes, OptionalDouble lineRate) {
        try {
            return LogAnalysis.analyze("test.log", new ByteArrayInputStream(bytes), lineRate);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Finding finding(LogReport report, String id) {
        return report.findings().stream().filter(f -> f.id().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError("no finding " + id + " in " + report.findings()));
    }
}
