package io.railyard.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One run of a measuring tool (ib_write_bw, iperf3) from a helper pod: argv as given, never through a shell; run again
 * while its output says the peer is not listening yet; killed at the deadline.
 *
 * @param output what it printed, stdout and stderr together
 * @param exit its exit status, {@code timeout}, or 127 when it could not be started (its reason in the output)
 */
record ToolRun(String output, String exit) {

    static ToolRun run(List<String> argv, Instant deadline, Predicate<String> notListening, long retryMillis) throws Exception {
        while (true) {
            Process process;
            try {
                process = new ProcessBuilder(argv).redirectErrorStream(true).start();
            } catch (IOException e) {
                return new ToolRun("cannot run " + argv.getFirst() + ": " + e.getMessage() + "\n", "127");
            }
            Future<String> output;
            try (ExecutorService reader = Executors.newVirtualThreadPerTaskExecutor()) {
                output = reader.submit(() -> new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
                long left = Math.max(0, Duration.between(Instant.now(), deadline).toMillis());
                if (!process.waitFor(left, TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly();
                    return new ToolRun(output.get(), "timeout");
                }
            }
            String text = output.get();
            // iperf3 -J exits 0 when it could not connect: its words decide, not its status
            if (notListening.test(text) && Instant.now().plusMillis(retryMillis).isBefore(deadline)) {
                Thread.sleep(retryMillis);
                continue;
            }
            return new ToolRun(text, String.valueOf(process.exitValue()));
        }
    }

    /** The output as a framed block's body: ending in a newline. */
    String body() {
        return output + (output.endsWith("\n") || output.isEmpty() ? "" : "\n");
    }
}
