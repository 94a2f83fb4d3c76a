package io.railyard.diagnose.logs;

import java.nio.charset.StandardCharsets;

/**
 * One line of an input, as bytes in a reused buffer: cheap byte searches first, a String only for lines that matter.
 * Valid until the reader moves on.
 */
public final class Line {
    private byte[] bytes;
    private int length;
    private long number;
    private String text;

    void reset(byte[] bytes, int length, long number) {
        this.bytes = bytes;
        this.length = length;
        this.number = number;
        this.text = null;
    }

    /** The line number, from 1. */
    public long number() {
        return number;
    }

    public boolean contains(byte[] needle) {
        return indexOf(needle, 0) >= 0;
    }

    /** The position of the needle at or after {@code from}, or -1. */
    public int indexOf(byte[] needle, int from) {
        int last = length - needle.length;
        byte first = needle[0];
        for (int i = Math.max(from, 0); i <= last; i++) {
            if (bytes[i] != first) {
                continue;
            }
            int j = 1;
            while (j < needle.length && bytes[i + j] == needle[j]) {
                j++;
            }
            if (j == needle.length) {
                return i;
            }
        }
        return -1;
    }

    /** The line as text (ISO-8859-1, so that any byte survives; the formats read here are ASCII). */
    public String text() {
        if (text == null) {
            text = new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
        }
        return text;
    }

    static byte[] ascii(String needle) {
        return needle.getBytes(StandardCharsets.US_ASCII);
    }
}
