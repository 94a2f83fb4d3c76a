package io.railyard.cli;

import io.railyard.diagnose.inspector.InspectorRecord;
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
 * written waits for its end. Counts the records read and the complete lines that are no record.
 */
final class InspectorFiles {
    /** Where one file was left. */
    private static final class Tail {
        Object identity;
        long offset;
        final StringBuilder partial = new StringBuilder();
    }

    private final Path dir;
    private final Map<Path, Tail> tails = new HashMap<>();
    private long records;
    private long parseErrors;

    InspectorFiles(Path dir) {
        this.dir = dir;
    }

    /** Reads what the files gained since the last poll, record by record. */
    void poll(Consumer<InspectorRecord> consumer) throws IOException {
        List<Path> files;
        try (Stream<Path> listed = Files.list(dir)) {
            files = listed.filter(Files::isRegularFile).sorted().toList();
        }
        tails.keySet().retainAll(files);
        for (Path file : files) {
            read(file, tails.computeIfAbsent(file, f -> new Tail()), consumer);
        }
    }

    private void read(Path file, Tail tail, Consumer<InspectorRecord> consumer) throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        if (!Objects.equals(attributes.fileKey(), tail.identity) || attributes.size() < tail.offset) {
            tail.identity = attributes.fileKey();
            tail.offset = 0;
            tail.partial.setLength(0);
        }
        if (attributes.size() == tail.offset) {
            return;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(attributes.size() - tail.offset, 16 << 20));
            channel.read(buffer, tail.offset);
            tail.offset += buffer.position();
            String text = new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8);
            int from = 0;
            for (int newline; (newline = text.indexOf('\n', from)) >= 0; from = newline + 1) {
                tail.partial.append(text, from, newline);
                line(tail.partial.toString(), consumer);
                tail.partial.setLength(0);
            }
            tail.partial.append(text, from, text.length());
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

    long records() {
        return records;
    }

    long parseErrors() {
        return parseErrors;
    }
}
