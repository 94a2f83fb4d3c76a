package io.railyard.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A long-running command of Railyard's jar (the operator, an agent) in a process of its own, its output in a log file,
 * started again when it exits as the kubelet restarts its Deployment's or DaemonSet's container (restartPolicy Always).
 */
final class RailyardProcess implements AutoCloseable {
    final Path log;
    private final ProcessBuilder builder;
    private final AtomicInteger restarts = new AtomicInteger();
    private volatile Process process;
    private volatile boolean closing;

    private RailyardProcess(Path log, ProcessBuilder builder) {
        this.log = log;
        this.builder = builder;
    }

    static RailyardProcess start(String name, String... args) {
        Path log = ControlPlane.REPO.resolve("e2e/target/logs").resolve(name + ".log");
        List<String> command = new ArrayList<>(List.of(java(), "-Xmx384m", "-jar", Installation.JAR.toString()));
        command.addAll(List.of(args));
        try {
            Files.createDirectories(log.getParent());
            Files.deleteIfExists(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ProcessBuilder builder = new ProcessBuilder(command).directory(ControlPlane.REPO.toFile())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().remove("KUBECONFIG");
        RailyardProcess started = new RailyardProcess(log, builder);
        started.launch();
        return started;
    }

    private void launch() {
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        process.onExit().thenAccept(ended -> {
            if (!closing) { // a second later: the kubelet's back-off starts at 10 s, a test has less time
                note("exited with code " + ended.exitValue() + "; started again, as the kubelet would");
                restarts.incrementAndGet();
                CompletableFuture.runAsync(this::launch, CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS));
            }
        });
    }

    /** Railyard's one-shot command (submit, status, render), run to its end as a user runs it. */
    static Processes.Result run(ControlPlane cluster, String stdin, String... args) {
        List<String> command = new ArrayList<>(List.of(java(), "-jar", Installation.JAR.toString()));
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

    /** How many times it exited and was started again. */
    int restarts() {
        return restarts.get();
    }

    /** Freezes the process (SIGSTOP) or lets it go on (SIGCONT): its connections stay open, it reads nothing meanwhile. */
    void signal(String signal) {
        Processes.Result sent = Processes.run(ControlPlane.REPO, 10, "kill", "-" + signal, String.valueOf(process.pid()));
        if (sent.exitCode() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + process.pid() + ": " + sent.err());
        }
    }

    private void note(String line) {
        try {
            Files.writeString(log, "[e2e] " + line + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND, StandardOpenOption.CREATE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    @Override
    public void close() {
        closing = true;
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
