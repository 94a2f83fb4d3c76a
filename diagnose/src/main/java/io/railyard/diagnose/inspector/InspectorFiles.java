package io.railyard.diagnose.inspector;

import java.io.ByteArrayOutputStream;
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
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * NCCL Inspector's dump directory read as it grows: a file per process, each read from where the last poll stopped; a
 * file truncated, or replaced by another of its name (rotated), is read again from its start; a last line still being
 * written waits for its end. Counts the records read and the complete lines that are no record. Reads through one
 * small buffer, so that a backlog of gigabytes fits the sidecar's small heap.
 */
public final class InspectorFiles {
    /** Where one file was left. */
    private static final class Tail {
        Object identity;
        long offset;
        final ByteArrayOutputStream partial = new ByteArrayOutputStream();
        boolean overlong;
    }

    public static final int BUFFER = 1 << 20;
    /** What one poll reads of a file at most, so that a poll of a large backlog stays short. */
    public static final long PER_POLL = 64L << 20;
    /** A line longer than this is no record (verbose records with kernel events are a few KiB): dropped, not kept whole. */
    public static final int MAX_LINE = 1 << 20;

    private final Path dir;
    private final Map<Path, Tail> tails = new HashMap<>();
    private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER);
    private long records;
    private long parseErrors;

    public InspectorFiles(Path dir) {
        this.dir = dir;
    }

    /** Reads what the files gained since the last poll, record by record, up to {@value #PER_POLL} bytes of each; the bytes read. */
    public long poll(Consumer<InspectorRecord> consumer) throws IOException {
        List<Path> files;
        try (Stream<Path> listed = Files.list(dir)) {
            // Inspector's files are <host>-pid<pid>.log; a dotfile beside them is the pod's own (its GPUs' NICs)
            files = listed.filter(Files::isRegularFile).filter(file -> !file.getFileName().toString().startsWith(".")).sorted().toList();
        }
        tails.keySet().retainAll(files);
        long read = 0;
        for (Path file : files) {
            read += read(file, tails.computeIfAbsent(file, f -> new Tail()), consumer);
        }
        return read;
    }

    private long read(Path file, Tail tail, Consumer<InspectorRecord> consumer) throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        if (!Objects.equals(attributes.fileKey(), tail.identity) || attributes.size() < tail.offset) {
            tail.identity = attributes.fileKey();
            tail.offset = 0;
            tail.partial.reset();
            tail.overlong = false;
        }
        long start = tail.offset;
        if (attributes.size() == start) {
            return 0;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            while (tail.offset < attributes.size() && tail.offset - start < PER_POLL) {
                buffer.clear().limit((int) Math.min(BUFFER, attributes.size() - tail.offset));
                int n = channel.read(buffer, tail.offset);
                if (n <= 0) {
                    break;
                }
                tail.offset += n;
                lines(buffer.array(), n, tail, consumer);
            }
        }
        return tail.offset - start;
    }

    private void lines(byte[] bytes, int length, Tail tail, Consumer<InspectorRecord> consumer) {
        int from = 0;
        for (int i = 0; i < length; i++) {
            if (bytes[i] != '\n') {
                continue;
            }
            if (tail.overlong) {
                parseErrors++;
            } else if (tail.partial.size() > 0) {
                tail.partial.write(bytes, from, i - from);
                line(tail.partial.toString(StandardCharsets.UTF_8), consumer);
            } else {
                line(new String(bytes, from, i - from, StandardCharsets.UTF_8), consumer);
            }
            tail.partial.reset();
            tail.overlong = false;
            from = i + 1;
        }
        if (!tail.overlong && tail.partial.size() + length - from > MAX_LINE) {
            tail.overlong = true;
            tail.partial.reset();
        }
        if (!tail.overlong) {
            tail.partial.write(bytes, from, length - from);
        }
    }

    private void line(String line, Consumer<InspectorRecord> consumer) {
        if (line.isBlank()) {
            return;
        }
        InspectorRecord.parse(line).ifPresentOrElse(record -> {
            records++;
            consumer.accept(record);
        }, () -> parseErrors++);
    }

    public long records() {
        return records;
    }

    public long parseErrors() {
        return parseErrors;
    }
}
