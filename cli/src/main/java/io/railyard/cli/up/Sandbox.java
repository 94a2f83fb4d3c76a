package io.railyard.cli.up;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Where {@code railyard up} keeps one local cluster: its control plane's state, each node's copy of a host tree, the
 * logs and pids of the processes it started, and what it was started with. {@code railyard down} removes all of it.
 */
public record Sandbox(Path dir) {
    /** Written last by a finished {@code up}: the settings it ran with; also marks a folder as a sandbox's own. */
    private static final String SETTINGS = "sandbox.properties";

    /** {@code $XDG_CACHE_HOME/railyard/up}, else {@code ~/.cache/railyard/up}. */
    public static Path defaultDir() {
        String cache = System.getenv("XDG_CACHE_HOME");
        Path base = cache == null || cache.isBlank() ? Path.of(System.getProperty("user.home"), ".cache") : Path.of(cache);
        return base.resolve("railyard/up");
    }

    public Path controlPlane() {
        return dir.resolve("control-plane");
    }

    /** The admin kubeconfig that {@code tools/control-plane up} wrote. */
    public Path kubeconfig() {
        return controlPlane().resolve("kubeconfig");
    }

    /** The node's own copy of its host tree: what its agent reads, and what a planted fault changes. */
    public Path nodeRoot(String node) {
        return dir.resolve("nodes").resolve(node).resolve("root");
    }

    Path nodeDir(String node) {
        return dir.resolve("nodes").resolve(node);
    }

    Path logs() {
        return dir.resolve("logs");
    }

    Path pids() {
        return dir.resolve("pids");
    }

    /** The pods' container logs, in the kubelet's CRI format, that KWOK serves through {@code pods/log}. */
    Path podLogs() {
        return dir.resolve("pod-logs");
    }

    /** Whether a cluster of {@code up} is here (or was, and was not taken down). */
    public boolean exists() {
        return Files.exists(dir.resolve(SETTINGS)) || Files.isDirectory(pids());
    }

    /** Whether this folder may be emptied: one {@code up} made, or an empty one. */
    public boolean ownsOrEmpty() {
        if (!Files.exists(dir) || exists()) {
            return true;
        }
        try (var entries = Files.list(dir)) {
            return entries.findAny().isEmpty();
        } catch (IOException e) {
            return false;
        }
    }

    public void writeSettings(Properties settings) {
        try (var out = Files.newBufferedWriter(dir.resolve(SETTINGS))) {
            settings.store(out, "railyard up");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Properties settings() {
        Properties settings = new Properties();
        try (var in = Files.newBufferedReader(dir.resolve(SETTINGS))) {
            settings.load(in);
        } catch (IOException e) {
            throw new SandboxException("no cluster of railyard up in " + dir + ": start one with railyard up");
        }
        return settings;
    }
}
