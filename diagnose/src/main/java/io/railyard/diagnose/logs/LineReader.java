package io.railyard.diagnose.logs;

import java.io.IOException;
import java.io.InputStream;
import java.util.function.Consumer;

/**
 * Splits an input into lines in constant memory: lines end at LF (a CR before it is dropped), and a line longer than
 * {@link #MAX_LINE} bytes keeps its first {@link #MAX_LINE} bytes, the rest skipped.
 */
final class LineReader {
    static final int MAX_LINE = 64 * 1024;

    private LineReader() {}

    static long forEachLine(InputStream in, Consumer<Line> consumer) throws IOException {
        byte[] chunk = new byte[1 << 16];
        byte[] line = new byte[MAX_LINE];
        Line view = new Line();
        int length = 0;
        long number = 0;
        int read;
        while ((read = in.read(chunk)) > 0) {
            for (int i = 0; i < read; i++) {
                byte b = chunk[i];
                if (b == '\n') {
                    int end = Math.min(length, MAX_LINE);
                    if (end > 0 && length <= MAX_LINE && line[end - 1] == '\r') {
                        end--;
                    }
                    view.reset(line, end, ++number);
                    consumer.accept(view);
                    length = 0;
                } else {
                    if (length < MAX_LINE) {
                        line[length] = b;
                    }
                    length++;
                }
            }
        }
        if (length > 0) {
            view.reset(line, Math.min(length, MAX_LINE), ++number);
            consumer.accept(view);
        }
        return number;
    }
}
