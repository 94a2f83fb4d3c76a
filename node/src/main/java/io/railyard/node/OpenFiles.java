package io.railyard.node;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiPredicate;
import java.util.function.Function;

/**
 * Files kept open between reads, each read again from offset 0 with one {@code pread}: a sysfs attribute shows its
 * value anew on every read, so a scraper that polls thousands of counters makes one system call per file instead of
 * opening and closing each. A file that fails to read (its device went away) is opened afresh once. The names in a
 * directory read whole are listed once. A round of reads ends with {@link #endRound()}, which closes what the round did
 * not use. Not thread-safe.
 */
final class OpenFiles {
    /** Beyond this many, files are read without being kept open: a guard against the process's file limit. */
    private static final int MAX_OPEN = 16384;

    /** What is kept, and the last round that used it. */
    private static final class Kept<T> {
        final T value;
        long lastRound;

        Kept(T value, long round) {
            this.value = value;
            this.lastRound = round;
        }
    }

    private record Identity(Object fileKey, long round) {}

    /** By directory, then name: a scrape looks files up by name in a directory it holds. */
    private final Map<Path, Map<String, Kept<FileChannel>>> open = new HashMap<>();
    private final Map<Path, Identity> identities = new HashMap<>();
    /** Names in directories whose files are kept open: a device's counter files stay the same while it does. */
    private final Map<Path, Kept<List<String>>> listings = new HashMap<>();
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
    private final byte[] bytes = new byte[4096];
    private int count;
    private long round;

    /** The content of a file in {@code dir} without surrounding white space; throws what opening or reading it throws. */
    String read(Path dir, String name) throws IOException {
        Map<String, Kept<FileChannel>> files = open.computeIfAbsent(dir, d -> new HashMap<>());
        Kept<FileChannel> entry = files.get(name);
        if (entry != null) {
            try {
                entry.lastRound = round;
                return readFrom(entry.value);
            } catch (IOException e) {
                close(entry.value);
                files.remove(name);
                count--;
            }
        }
        FileChannel channel = FileChannel.open(dir.resolve(name), StandardOpenOption.READ);
        try {
            String text = readFrom(channel);
            if (count < MAX_OPEN) {
                files.put(name, new Kept<>(channel, round));
                count++;
                channel = null;
            }
            return text;
        } finally {
            if (channel != null) {
                channel.close();
            }
        }
    }

    /** The names in a directory, sorted, as listed when it was first asked for. */
    List<String> names(Path dir, Function<Path, List<String>> list) {
        Kept<List<String>> listing = listings.computeIfAbsent(dir, d -> new Kept<>(list.apply(d), round));
        listing.lastRound = round;
        return listing.value;
    }

    /**
     * Closes the files kept open under {@code dir} when it is no longer the directory it was (a device removed and
     * added again under the same name), so that they are opened afresh.
     */
    void renewIfReplaced(Path dir) {
        Object identity;
        try {
            identity = Files.readAttributes(dir, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            identity = null;
        }
        Identity previous = identities.put(dir, new Identity(identity, round));
        if (previous != null && !Objects.equals(previous.fileKey, identity)) {
            closeWhere((path, entry) -> path.startsWith(dir));
            listings.keySet().removeIf(path -> path.startsWith(dir));
        }
    }

    /** Ends a round of reads: the files not read in it, of devices that went away, are closed. */
    void endRound() {
        closeWhere((path, entry) -> entry.lastRound < round);
        open.values().removeIf(Map::isEmpty);
        identities.values().removeIf(identity -> identity.round < round);
        listings.values().removeIf(listing -> listing.lastRound < round);
        round++;
    }

    private void closeWhere(BiPredicate<Path, Kept<FileChannel>> condition) {
        open.forEach((dir, files) -> files.values().removeIf(entry -> {
            if (!condition.test(dir, entry)) {
                return false;
            }
            close(entry.value);
            count--;
            return true;
        }));
    }

    private String readFrom(FileChannel channel) throws IOException {
        buffer.clear();
        // sysfs attributes are at most a page and end with a newline: one read is enough, EOF needs no second call
        while (buffer.hasRemaining() && channel.read(buffer, buffer.position()) > 0 && buffer.get(buffer.position() - 1) != '\n') {
            // a file without the trailing newline (some fixtures): read on to EOF
        }
        int length = buffer.flip().remaining();
        buffer.get(bytes, 0, length);
        return new String(bytes, 0, length, StandardCharsets.UTF_8).strip();
    }

    private static void close(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // read-only: nothing is lost
        }
    }
}
