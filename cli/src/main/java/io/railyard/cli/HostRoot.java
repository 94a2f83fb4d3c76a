package io.railyard.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The {@code --root} option of every command that reads a host, checked before anything reads under it. */
final class HostRoot {
    @Option(names = "--root", defaultValue = "/", description = "Host root holding sys/, proc/ and dev/ (default: ${DEFAULT-VALUE}).")
    Path root;

    /** The root, once it is known to hold a readable {@code sys}. */
    Path checked() {
        return check(root);
    }

    static Path check(Path root) {
        if (!Files.exists(root)) {
            throw new Railyard.UsageException("--root " + root + " does not exist: give the host root (/) or a node tree");
        }
        if (!Files.isDirectory(root) || !Files.isReadable(root)) {
            throw new Railyard.UsageException("--root " + root + " is not a readable directory");
        }
        if (!Files.isDirectory(root.resolve("sys")) || !Files.isReadable(root.resolve("sys"))) {
            throw new Railyard.UsageException("--root " + root + " has no readable sys directory: "
                    + "give the host root (/) or a tree laid out as sys/, proc/, dev/");
        }
        return root;
    }
}
