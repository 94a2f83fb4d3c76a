package io.railyard.diagnose.logs;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * An input as blocks of whole lines, for {@link LineReader}: each block ends at a line's LF, except the input's last and
 * a block inside a line longer than a block ({@link Block#cut}). The part of a line that a block's end cuts off starts
 * the next block.
 */
final class LineBlocks {
    /** {@code length} bytes of {@code bytes}; {@code cut}: no LF in them, the line goes on in the next block. */
    record Block(byte[] bytes, int length, boolean cut) {}

    private final InputStream in;
    private byte[] rest = new byte[256];
    private int restLength;
    private boolean ended;

    LineBlocks(InputStream in) {
        this.in = in;
    }

    /** Reads the next block into {@code bytes}; null once the input has ended. */
    Block fill(byte[] bytes) throws IOException {
        if (ended) {
            return null;
        }
        System.arraycopy(rest, 0, bytes, 0, restLength);
        int length = restLength + in.readNBytes(bytes, restLength, bytes.length - restLength);
        restLength = 0;
        if (length < bytes.length) {
            ended = true;
            return new Block(bytes, length, false);
        }
        int lastLf = length - 1;
        while (lastLf >= 0 && bytes[lastLf] != '\n') {
            lastLf--;
        }
        if (lastLf < 0) {
            return new Block(bytes, length, true);
        }
        restLength = length - lastLf - 1;
        if (restLength > rest.length) {
            rest = Arrays.copyOf(rest, Math.max(restLength, 2 * rest.length));
        }
        System.arraycopy(bytes, lastLf + 1, rest, 0, restLength);
        return new Block(bytes, lastLf + 1, false);
    }
}
