package io.railyard.node;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Reads the host's files under a root directory: {@code ROOT/sys}, {@code ROOT/proc}, {@code ROOT/dev}.
 * Every read turns a missing, unreadable or malformed file into an {@link Attr.Unknown} that names the file.
 */
public final class Sysfs {
    private final Path root;
    private final OpenFiles openFiles;

    public Sysfs(Path root) {
        this(root, null);
    }

    private Sysfs(Path root, OpenFiles openFiles) {
        this.root = root.toAbsolutePath().normalize();
        this.openFiles = openFiles;
    }

    /**
     * A reader that keeps the files it reads open and reads them again in place, for a scraper that reads the same
     * thousands of files in rounds; {@link #endRound()} after each. One thread at a time.
     */
    public static Sysfs keepingFilesOpen(Path root) {
        return new Sysfs(root, new OpenFiles());
    }

    /** With files kept open: makes the files under a device's directory be opened afresh if it is a new directory. */
    public void renewIfReplaced(Path dir) {
        if (openFiles != null) {
            openFiles.renewIfReplaced(dir);
        }
    }

    /** With files kept open: closes the files this round did not read (their device went away). */
    public void endRound() {
        if (openFiles != null) {
            openFiles.endRound();
        }
    }

    public Path root() {
        return root;
    }

    /** A path under the root: {@code resolve("sys/class/infiniband")}. */
    public Path resolve(String relative) {
        return root.resolve(relative);
    }

    /** The path as the host sees it: {@code /sys/class/...} rather than {@code ROOT/sys/class/...}. */
    public String hostPath(Path path) {
        Path normalized = path.toAbsolutePath().normalize();
        return normalized.startsWith(root) ? "/" + root.relativize(normalized) : normalized.toString();
    }

    /** The file's content without surrounding white space. */
    public Attr<String> read(Path file) {
        return read(file.getParent(), file.getFileName().toString());
    }

    private Attr<String> read(Path dir, String name) {
        try {
            return Attr.of(openFiles != null ? openFiles.read(dir, name)
                    : new String(Files.readAllBytes(dir.resolve(name)), StandardCharsets.UTF_8).strip()); // any byte survives
        } catch (NoSuchFileException e) {
            return Attr.unknown(hostPath(dir.resolve(name)) + ": missing");
        } catch (IOException | RuntimeException e) {
            return Attr.unknown(hostPath(dir.resolve(name)) + ": unreadable (" + describe(e) + ")");
        }
    }

    /** The file's content parsed; a parser signals malformed text with {@link IllegalArgumentException}. */
    public <T> Attr<T> read(Path file, Function<String, T> parser) {
        return parse(file, read(file), parser);
    }

    private <T> Attr<T> parse(Path file, Attr<String> content, Function<String, T> parser) {
        return content.flatMap(text -> {
            try {
                return Attr.of(parser.apply(text));
            } catch (IllegalArgumentException e) {
                return Attr.unknown(hostPath(file) + ": malformed '" + abbreviate(text) + "' (" + e.getMessage() + ")");
            }
        });
    }

    public Attr<Integer> readInt(Path file) {
        return read(file, Sysfs::parseInt);
    }

    /** The name of the file a symlink points to ({@code driver -> ../../bus/pci/drivers/mlx5_core} gives mlx5_core). */
    public Attr<String> linkName(Path link) {
        try {
            return Attr.of(Files.readSymbolicLink(link).getFileName().toString());
        } catch (NoSuchFileException e) {
            return Attr.unknown(hostPath(link) + ": missing");
        } catch (IOException | UnsupportedOperationException e) {
            return Attr.unknown(hostPath(link) + ": not a symlink (" + describe(e) + ")");
        }
    }

    /** The real path with every symlink resolved, or unknown when it leads nowhere. */
    public Attr<Path> realPath(Path path) {
        try {
            return Attr.of(path.toRealPath());
        } catch (NoSuchFileException e) {
            return Attr.unknown(hostPath(path) + ": missing");
        } catch (IOException e) {
            return Attr.unknown(hostPath(path) + ": unresolvable (" + describe(e) + ")");
        }
    }

    /**
     * Every file in a directory with its content, by name in sorted order; empty when the directory is missing. With
     * files kept open, the directory is listed once: counter files come and go with their device, not on their own.
     */
    public Map<String, Attr<String>> readDirectory(Path dir) {
        Map<String, Attr<String>> files = new TreeMap<>();
        Directory directory = directory(dir);
        for (String name : openFiles != null ? openFiles.names(dir, this::list) : list(dir)) {
            files.put(name, directory.read(name));
        }
        return files;
    }

    /** A directory whose files are read by name. */
    public Directory directory(Path dir) {
        return new Directory(dir);
    }

    /** A directory given by {@link #directory(Path)}; a missing one reads every file as missing. */
    public final class Directory {
        private final Path dir;

        private Directory(Path dir) {
            this.dir = dir;
        }

        /** A file's content without surrounding white space, or why it could not be read. */
        public Attr<String> read(String name) {
            return Sysfs.this.read(dir, name);
        }

        public <T> Attr<T> read(String name, Function<String, T> parser) {
            return parse(dir.resolve(name), read(name), parser);
        }
    }

    /** The names in a directory, sorted; empty when it is missing or not a directory. */
    public List<String> list(Path dir) {
        String[] names = dir.toFile().list(); // names without a Path object each: this runs for every port on every scrape
        if (names == null) {
            return List.of();
        }
        Arrays.sort(names);
        return List.of(names);
    }

    public boolean exists(Path path) {
        return Files.exists(path);
    }

    static int parseInt(String text) {
        String t = text.strip();
        try {
            return t.startsWith("0x") ? Integer.parseInt(t.substring(2), 16) : Integer.parseInt(t);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected an integer");
        }
    }

    private static String describe(Exception e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private static String abbreviate(String text) {
        String oneLine = text.replace('\n', ' ');
        return oneLine.length() > 40 ? oneLine.substring(0, 40) + "…" : oneLine;
    }
}
