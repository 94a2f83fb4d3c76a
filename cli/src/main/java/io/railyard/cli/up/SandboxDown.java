package io.railyard.cli.up;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.function.Consumer;

/** {@code railyard down}: every process a sandbox's {@code up} started stopped, its control plane down, its folder gone. */
public final class SandboxDown {
    private final Path home;
    private final Sandbox sandbox;
    private final Consumer<String> progress;

    public SandboxDown(Path home, Sandbox sandbox, Consumer<String> progress) {
        this.home = home;
        this.sandbox = sandbox;
        this.progress = progress;
    }

    /** Takes down the sandbox, if one is there; returns whether one was. */
    public boolean stopIfUp() {
        if (!sandbox.exists() && !Files.isDirectory(sandbox.controlPlane())) {
            return false;
        }
        int stopped = new Daemons(sandbox).stopAll();
        if (Files.isDirectory(sandbox.controlPlane())) {
            ControlPlaneScript.of(home).down(sandbox.controlPlane());
        }
        delete(sandbox.dir());
        progress.accept("took down the cluster in " + sandbox.dir() + " (" + stopped + " of Railyard's processes, the control plane)");
        return true;
    }

    /** Deletes a folder and what is in it; links are removed, never followed. */
    private static void delete(Path dir) {
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path folder, IOException e) throws IOException {
                    if (e != null) {
                        throw e;
                    }
                    Files.delete(folder);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
