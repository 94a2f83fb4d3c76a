package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code railyard analyze -} as a real process reading a log piped to it. */
class AnalyzeStdinIT {
    @Test
    void readsStandardInput() throws Exception {
        Path log = Path.of(System.getProperty("railyard.repo", "..")).resolve("testdata/logs/nccl-ib-retry-exceeded-01.log");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process analyze = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"), "io.railyard.cli.Railyard",
                "analyze", "-")).redirectInput(log.toFile()).redirectErrorStream(true).start();
        String out = new String(analyze.getInputStream().readAllBytes());

        assertThat(analyze.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(analyze.exitValue()).as(out).isOne();
        assertThat(out).startsWith("-: nccl-log").contains("retry-exceeded");
        assertThat(Files.size(log)).isPositive();
    }
}
