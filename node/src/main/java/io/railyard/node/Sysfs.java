package io.railyard.node;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

/**
 * Reads the host's files under a root directory: {@code ROOT/sys}, {@code ROOT/proc}, {@code ROOT/dev}.
 * Every read turns a missing, unreadable or malformed file into an {@link Attr.Unknown} that names the file.
 */
public final class Sysfs {
    private final Path root;

    public Sysfs(Path root) {
        this.root = root.toAbsolutePath().normalize();
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
            return Attr.of(Files.readString(file).strip());
        } catch (NoSuchFileException e) {
            return Attr.unknown(hostPath(file) + ": missing");
        } catch (IOException | RuntimeException e) {
            return Attr.unknown(hostPath(file) + ": unreadable (" + describe(e) + ")");
        }
    }

    /** The file's content parsed; a parser signals malformed text with {@link IllegalArgumentException}. */
    public <T> Attr<T> read(Path file, Function<String, T> parser) {
        return read(file).flatMap(text -> {
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

    /** The names in a directory, sorted; empty when it is missing or not a directory. */
    public List<String> list(Path dir) {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            entries.forEach(entry -> names.add(entry.getFileName().toString()));
        } catch (IOException e) {
            return List.of();
        }
        names.sort(Comparator.naturalOrder());
        return names;
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
