package io.railyard.diagnose.logs;

/**
 * One line of an input, as a range of a larger Latin-1 string (the bytes of the chunk being read): searches use the
 * JDK's vectorized {@code String.indexOf}, and a line becomes a String of its own only when it matters.
 * Valid until the reader moves on.
 */
public final class Line {
    private String chunk;
    private int start;
    private int end;
    private long number;
    private String text;

    void reset(String chunk, int start, int end, long number) {
        this.chunk = chunk;
        this.start = start;
        this.end = end;
        this.number = number;
        this.text = null;
    }

    /** The line number, from 1. */
    public long number() {
        return number;
    }

    public int length() {
        return end - start;
    }

    public boolean contains(String needle) {
        return chunk.indexOf(needle, start, end) >= 0;
    }

    /** The position of the needle in the line at or after {@code from}, or -1. */
    public int indexOf(String needle, int from) {
        int at = chunk.indexOf(needle, start + Math.max(from, 0), end);
        return at < 0 ? -1 : at - start;
    }

    /** Whether the line has the needle at position {@code at}. */
    public boolean startsWith(String needle, int at) {
        return at >= 0 && start + at + needle.length() <= end && chunk.startsWith(needle, start + at);
    }

    /** The character at a position of the line. */
    public char charAt(int at) {
        return chunk.charAt(start + at);
    }

    /** The first character that is not a space or tab, or 0 for a blank line. */
    public char firstNonBlank() {
        for (int i = start; i < end; i++) {
            char c = chunk.charAt(i);
            if (c != ' ' && c != '\t') {
                return c;
            }
        }
        return 0;
    }

    /** The line as text (bytes as ISO-8859-1, so that any byte survives; the formats read here are ASCII). */
    public String text() {
        if (text == null) {
            text = chunk.substring(start, end);
        }
        return text;
    }
}
