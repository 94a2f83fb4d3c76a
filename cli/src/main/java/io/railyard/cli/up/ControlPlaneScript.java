package io.railyard.cli.up;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** {@code tools/control-plane} of this clone of Railyard: the real Kubernetes a sandbox runs on. */
final class ControlPlaneScript {
    private final Path script;

    private ControlPlaneScript(Path script) {
        this.script = script;
    }

    /** The script of the clone at {@code home}; one that has none is not a clone this command can run from. */
    static ControlPlaneScript of(Path home) {
        Path script = home.resolve("tools/control-plane");
        if (!Files.isExecutable(script)) {
            throw new SandboxException(script + " is missing: railyard up runs from a clone of Railyard (./railyard up)");
        }
        return new ControlPlaneScript(script);
    }

    /** Where the built binaries are (or will be). */
    Path binaries() {
        return Path.of(run(false, "bin").strip());
    }

    boolean built() {
        Path bin = binaries();
        return List.of("kube-apiserver", "kube-scheduler", "kube-controller-manager", "kubectl", "etcd", "kwok").stream()
                .allMatch(name -> Files.isExecutable(bin.resolve(name)));
    }

    /** Builds what is missing, its progress on this terminal; the {@code extras} ({@code volcano}) too. */
    void build(List<String> extras) {
        List<String> args = new ArrayList<>(List.of("build"));
        extras.forEach(extra -> args.addAll(List.of("--with", extra)));
        run(true, args.toArray(String[]::new));
    }

    /** Starts a control plane with its state in {@code dir}, the {@code extras} beside it; returns what it printed. */
    String up(Path dir, List<String> extras) {
        List<String> args = new ArrayList<>(List.of("up", "--dir", dir.toString()));
        extras.forEach(extra -> args.addAll(List.of("--with", extra)));
        return run(false, args.toArray(String[]::new));
    }

    void down(Path dir) {
        run(false, "down", "--dir", dir.toString());
    }

    /** Runs the script; a failure is its last line of standard error. With {@code showProgress} its stderr is this terminal's. */
    private String run(boolean showProgress, String... args) {
        List<String> command = new ArrayList<>(List.of(script.toString()));
        command.addAll(List.of(args));
        try {
            Path err = Files.createTempFile("railyard-control-plane", ".err");
            try {
                ProcessBuilder builder = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
                builder.redirectError(showProgress ? ProcessBuilder.Redirect.INHERIT : ProcessBuilder.Redirect.to(err.toFile()));
                Process process = builder.start();
                String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                int code = process.waitFor();
                if (code != 0) {
                    List<String> lines = Files.readAllLines(err).stream().filter(line -> !line.isBlank()).toList();
                    String why = lines.isEmpty() ? "exit code " + code : lines.getLast();
                    throw new SandboxException("tools/control-plane " + args[0] + " failed: " + why);
                }
                return out;
            } finally {
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxException("interrupted while tools/control-plane " + args[0] + " ran");
        }
    }
}
