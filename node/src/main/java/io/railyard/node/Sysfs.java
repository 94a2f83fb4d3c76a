package io.railyard.node;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
        try {
            return Attr.of(openFiles != null ? openFiles.read(file) : Files.readString(file).strip());
        } catch (NoSuchFileException e) {
            return Attr.unknown(hostPath(file) + ": missing");
        } catch (IOException | RuntimeException e) {
            return Attr.unknown(hostPath(file) + ": unreadable (" + describe(e) + ")");
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
     * Every file in a directory with its content, by name in sorted order; empty when the directory is missing.
     */
    public Map<String, Attr<String>> readDirectory(Path dir) {
        Map<String, Attr<String>> files = new TreeMap<>();
        try (Directory directory = open(dir)) {
            for (String name : directory.names()) {
                files.put(name, directory.read(name));
            }
        }
        return files;
    }

    /**
     * An open directory whose files are read relative to it (openat), so the kernel does not walk the whole path,
     * with its symlinks, for each file: most of a scrape's cost on a node with many ports.
     */
    public Directory open(Path dir) {
        if (openFiles != null) {
            return new Directory(dir, null, null); // its files are read through the open files
        }
        try {
            DirectoryStream<Path> stream = Files.newDirectoryStream(dir);
            return new Directory(dir, stream instanceof SecureDirectoryStream<Path> secure ? secure : null, stream);
        } catch (IOException e) {
            return new Directory(dir, null, null);
        }
    }

    /** A directory opened by {@link #open(Path)}; a missing one reads every file as missing. */
    public final class Directory implements AutoCloseable {
        private final Path dir;
        private final SecureDirectoryStream<Path> secure;
        private final DirectoryStream<Path> stream;
        private final ByteBuffer buffer = ByteBuffer.allocate(4096);

        private Directory(Path dir, SecureDirectoryStream<Path> secure, DirectoryStream<Path> stream) {
            this.dir = dir;
            this.secure = secure;
            this.stream = stream;
        }

        /** The names in the directory, sorted; may be called once. */
        public List<String> names() {
            if (stream == null) {
                return list(dir);
            }
            List<String> names = new ArrayList<>();
            stream.forEach(entry -> names.add(entry.getFileName().toString()));
            names.sort(Comparator.naturalOrder());
            return names;
        }

        /** A file's content without surrounding white space, or why it could not be read. */
        public Attr<String> read(String name) {
            if (secure == null) {
                return Sysfs.this.read(dir.resolve(name));
            }
            buffer.clear();
            try (SeekableByteChannel channel = secure.newByteChannel(Path.of(name), Set.of(StandardOpenOption.READ))) {
                // sysfs attributes are at most a page and end with a newline: one read is enough, EOF needs no second call
                while (buffer.hasRemaining() && channel.read(buffer) > 0 && buffer.get(buffer.position() - 1) != '\n') {
                    // a file without the trailing newline (some fixtures): read on to EOF
                }
                return Attr.of(new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8).strip());
            } catch (NoSuchFileException e) {
                return Attr.unknown(hostPath(dir.resolve(name)) + ": missing");
            } catch (IOException | RuntimeException e) {
                return Attr.unknown(hostPath(dir.resolve(name)) + ": unreadable (" + describe(e) + ")");
            }
        }

        public <T> Attr<T> read(String name, Function<String, T> parser) {
            return parse(dir.resolve(name), read(name), parser);
        }

        @Override
        public void close() {
            if (stream != null) {
                try {
                    stream.close();
                } catch (IOException e) {
                    // nothing was written
                }
            }
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
