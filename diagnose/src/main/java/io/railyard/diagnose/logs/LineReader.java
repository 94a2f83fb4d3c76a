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
    /**
     * The most bytes made into one string: small enough that the bytes and their copy stay in the core's cache (larger
     * strings read slower), large enough for a longest line.
     */
    static final int WINDOW = 2 * MAX_LINE;

    private final Consumer<Line> consumer;
    private final Line view = new Line();
    private long number;
    /** Inside the rest of a line longer than MAX_LINE, its first bytes handed on. */
    private boolean skipping;

    private LineReader(Consumer<Line> consumer) {
        this.consumer = consumer;
    }

    /** Reads the input on the caller's thread, a window at a time. */
    static long forEachLine(InputStream in, Consumer<Line> consumer) throws IOException {
        LineReader reader = new LineReader(consumer);
        LineBlocks blocks = new LineBlocks(in);
        byte[] buffer = new byte[WINDOW];
        for (LineBlocks.Block block; (block = blocks.fill(buffer)) != null; ) {
            reader.block(block);
        }
        return reader.number;
    }

    /** Reads blocks another thread reads ahead. */
    static long forEachLine(ReadAhead blocks, Consumer<Line> consumer) throws IOException {
        LineReader reader = new LineReader(consumer);
        for (LineBlocks.Block block; (block = blocks.next()) != null; ) {
            reader.block(block);
        }
        return reader.number;
    }

    /** Hands on a block's lines, a window of whole lines at a time. */
    private void block(LineBlocks.Block block) {
        byte[] bytes = block.bytes();
        int length = block.length();
        int at = 0;
        if (skipping) {
            int lf = indexOfLf(bytes, 0, length);
            if (lf < 0) {
                return; // all of it inside the long line
            }
            skipping = false;
            at = lf + 1;
        }
        while (at < length) {
            int end = Math.min(at + WINDOW, length);
            if (end < length || block.cut()) {
                end = lastIndexOfLf(bytes, at, end) + 1;
            }
            if (end <= at) { // no LF in a window's bytes: a line longer than MAX_LINE
                emit(new String(bytes, at, MAX_LINE, StandardCharsets.ISO_8859_1), 0, MAX_LINE);
                int lf = indexOfLf(bytes, at + MAX_LINE, length);
                skipping = lf < 0;
                at = lf < 0 ? length : lf + 1;
                continue;
            }
            // Latin-1 keeps every byte as one char, and lets String.indexOf search with vector instructions.
            String window = new String(bytes, at, end - at, StandardCharsets.ISO_8859_1);
            int start = 0;
            int lf;
            while ((lf = window.indexOf('\n', start)) >= 0) {
                emit(window, start, Math.min(lf, start + MAX_LINE));
                start = lf + 1;
            }
            if (start < window.length()) { // the input's last line, without its LF
                emit(window, start, Math.min(window.length(), start + MAX_LINE));
            }
            at = end;
        }
    }

    /** Hands one line to the consumer, without the CR of a CRLF ending. */
    private void emit(String text, int start, int end) {
        int stop = end > start && text.charAt(end - 1) == '\r' ? end - 1 : end;
        view.reset(text, start, stop, ++number);
        consumer.accept(view);
    }

    private static int indexOfLf(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private static int lastIndexOfLf(byte[] bytes, int from, int to) {
        for (int i = to - 1; i >= from; i--) {
            if (bytes[i] == '\n') {
                return i;
            }
        }
        return -1;
    }
}
