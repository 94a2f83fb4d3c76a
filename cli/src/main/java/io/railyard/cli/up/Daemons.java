package io.railyard.cli.up;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Railyard's own processes of a sandbox (the operator, each node's agent, the workload player): started detached from
 * this command, in a session of their own, each with its log and pid file, so that they outlive {@code up} and
 * {@code down} finds them.
 */
final class Daemons {
    private static final String MAIN = "io.railyard.cli.Railyard";
    private static final Path SETSID = Path.of("/usr/bin/setsid");

    private final Sandbox sandbox;

    Daemons(Sandbox sandbox) {
        this.sandbox = sandbox;
    }

    /** {@code railyard ARGS...} in this JVM's java and class path, its heap capped, as {@code name}. */
    void start(String name, String heap, List<String> args) {
        List<String> command = new ArrayList<>();
        if (Files.isExecutable(SETSID)) {
            command.add(SETSID.toString());
        }
        command.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(List.of("-XX:+UseSerialGC", "-Xmx" + heap, "-XX:TieredStopAtLevel=1", "-Drailyard.home=" + System.getProperty("railyard.home"),
                "-cp", System.getProperty("java.class.path"), MAIN));
        command.addAll(args);
        try {
            Files.createDirectories(sandbox.logs());
            Files.createDirectories(sandbox.pids());
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(sandbox.logs().resolve(name + ".log").toFile()).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                    .start();
            Files.writeString(sandbox.pids().resolve(name + ".pid"), process.pid() + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The log of one of them, for a message that says where to look. */
    Path log(String name) {
        return sandbox.logs().resolve(name + ".log");
    }

    /** Whether {@code name} still runs. */
    boolean running(String name) {
        return process(sandbox.pids().resolve(name + ".pid")).isPresent();
    }

    /** Stops every one of them (SIGTERM, then SIGKILL after 10 s) and returns how many ran. */
    int stopAll() {
        if (!Files.isDirectory(sandbox.pids())) {
            return 0;
        }
        List<ProcessHandle> running = new ArrayList<>();
        try (Stream<Path> files = Files.list(sandbox.pids())) {
            files.forEach(file -> process(file).ifPresent(running::add));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        running.forEach(ProcessHandle::destroy);
        for (ProcessHandle process : running) {
            awaitExit(process, Duration.ofSeconds(10));
        }
        return running.size();
    }

    private static void awaitExit(ProcessHandle process, Duration timeout) {
        CompletableFuture<ProcessHandle> exit = process.onExit();
        try {
            exit.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            process.destroyForcibly();
            exit.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The process a pid file names, if it still runs and is one of ours (a pid the system gave to another is left alone). */
    private static Optional<ProcessHandle> process(Path pidFile) {
        try {
            long pid = Long.parseLong(Files.readString(pidFile).strip());
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                    .filter(process -> process.info().commandLine().map(line -> line.contains(MAIN)).orElse(false));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }
}
