package io.railyard.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;

/** Runs a command to its end: its exit code and what it printed, or a failed test when it outlives its time. */
final class Processes {
    private Processes() {}

    record Result(int exitCode, String out, String err) {}

    static Result run(Path directory, int seconds, String... command) {
        return run(directory, seconds, null, List.of(command));
    }

    static Result run(Path directory, int seconds, String stdin, List<String> command) {
        try {
            Process process = new ProcessBuilder(command).directory(directory.toFile()).start();
            CompletableFuture<String> err = drain(process.getErrorStream());
            CompletableFuture<String> out = drain(process.getInputStream());
            try (OutputStream in = process.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                Assertions.fail(String.join(" ", command) + " did not finish in " + seconds + " s");
            }
            return new Result(process.exitValue(), out.join(), err.join());
        } catch (IOException e) {
            throw new UncheckedIOException(String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static CompletableFuture<String> drain(InputStream stream) {
        return CompletableFuture.supplyAsync(() -> {
            try (stream) {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return e.toString();
            }
        });
    }
}
