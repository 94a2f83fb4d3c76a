package io.railyard.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/** The real helm or kubectl that tools/fetch-helm puts in target/tools: required under CI, skipped elsewhere without it. */
record HelmTool(Path binary) {
    static final Path REPO = Path.of(System.getProperty("railyard.repo", "..")).toAbsolutePath().normalize();

    /** What one run printed, and how it ended. */
    record Result(int exitCode, String out, String err) {}

    static HelmTool named(String name) {
        Path binary = REPO.resolve("target/tools").resolve(name).resolve(name);
        if (!Files.isExecutable(binary)) {
            String message = binary + " is missing: tools/fetch-helm fetches it (.ci/run does)";
            if (System.getenv("RAILYARD_CI") != null) {
                Assertions.fail(message);
            }
            Assumptions.abort(message);
        }
        return new HelmTool(binary);
    }

    Result run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(binary.toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(REPO.toFile()).start();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return e.toString();
            }
        });
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            Assertions.fail(String.join(" ", command) + " did not finish in 60 s");
        }
        return new Result(process.exitValue(), out, err.join());
    }
}
