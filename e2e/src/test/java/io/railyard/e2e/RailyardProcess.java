package io.railyard.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A long-running command of Railyard's jar (the operator, an agent) in a process of its own, its output in a log file. */
final class RailyardProcess implements AutoCloseable {
    final Path log;
    private final Process process;

    private RailyardProcess(Path log, Process process) {
        this.log = log;
        this.process = process;
    }

    static RailyardProcess start(String name, String... args) {
        Path log = ControlPlane.REPO.resolve("e2e/target/logs").resolve(name + ".log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "-jar", Installation.JAR.toString()));
        command.addAll(List.of(args));
        try {
            Files.createDirectories(log.getParent());
            ProcessBuilder builder = new ProcessBuilder(command).directory(ControlPlane.REPO.toFile())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
            builder.environment().remove("KUBECONFIG");
            return new RailyardProcess(log, builder.start());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Railyard's one-shot command (submit, status, render), run to its end as a user runs it. */
    static Processes.Result run(ControlPlane cluster, String stdin, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", Installation.JAR.toString()));
        command.addAll(List.of(args));
        command.addAll(List.of("--kubeconfig", cluster.kubeconfig.toString()));
        return Processes.run(ControlPlane.REPO, 120, stdin, command);
    }

    String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Freezes the process (SIGSTOP) or lets it go on (SIGCONT): its connections stay open, it reads nothing meanwhile. */
    void signal(String signal) {
        Processes.Result sent = Processes.run(ControlPlane.REPO, 10, "kill", "-" + signal, String.valueOf(process.pid()));
        if (sent.exitCode() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + process.pid() + ": " + sent.err());
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
