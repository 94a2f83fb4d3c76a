package io.railyard.diagnose.logs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Splits an input into lines in constant memory: lines end at LF (a CR before it is dropped), and a line longer than
 * {@link #MAX_LINE} bytes keeps its first {@link #MAX_LINE} bytes, the rest skipped.
 */
final class LineReader {
    static final int MAX_LINE = 64 * 1024;
    /** Small enough that a chunk and its copy as a string stay in the core's cache: larger chunks read slower. */
    private static final int BUFFER = 2 * MAX_LINE;

    private LineReader() {}

    static long forEachLine(InputStream in, Consumer<Line> consumer) throws IOException {
        byte[] buffer = new byte[BUFFER];
        Line view = new Line();
        int filled = 0;
        long number = 0;
        boolean skipping = false; // inside the rest of a line longer than MAX_LINE
        boolean eof = false;
        while (!eof) {
            int read = in.readNBytes(buffer, filled, buffer.length - filled);
            eof = filled + read < buffer.length;
            filled += read;
            // Latin-1 keeps every byte as one char, and lets String.indexOf search with vector instructions.
            String chunk = new String(buffer, 0, filled, StandardCharsets.ISO_8859_1);
            int start = 0;
            int newline;
            while ((newline = chunk.indexOf('\n', start)) >= 0) {
                if (!skipping) {
                    number = emit(chunk, start, Math.min(newline, start + MAX_LINE), view, number, consumer);
                }
                skipping = false;
                start = newline + 1;
            }
            int rest = filled - start;
            if (rest > 0 && (eof || rest >= MAX_LINE)) {
                if (!skipping) {
                    number = emit(chunk, start, start + Math.min(rest, MAX_LINE), view, number, consumer);
                }
                skipping = !eof;
                rest = 0;
            }
            System.arraycopy(buffer, filled - rest, buffer, 0, rest); // an unfinished line waits for its end
            filled = rest;
        }
        return number;
    }

    /** Hands one line to the consumer, without the CR of a CRLF ending; returns the new line count. */
    private static long emit(String chunk, int start, int end, Line view, long number, Consumer<Line> consumer) {
        int stop = end > start && chunk.charAt(end - 1) == '\r' ? end - 1 : end;
        view.reset(chunk, start, stop, number + 1);
        consumer.accept(view);
        return number + 1;
    }
}
