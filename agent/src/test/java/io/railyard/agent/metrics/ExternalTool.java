package io.railyard.agent.metrics;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/** A real tool a test runs beside Railyard: required under CI ({@code RAILYARD_CI} set), skipped without it elsewhere. */
final class ExternalTool {
    private ExternalTool() {}

    static Path require(String name) {
        Optional<Path> found = Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .map(dir -> Path.of(dir, name))
                .filter(Files::isExecutable)
                .findFirst();
        if (found.isEmpty()) {
            String message = name + " is not on PATH (.ci/run installs it with apt-get)";
            if (System.getenv("RAILYARD_CI") != null) {
                Assertions.fail(message);
            }
            Assumptions.abort(message);
        }
        return found.get();
    }
}
