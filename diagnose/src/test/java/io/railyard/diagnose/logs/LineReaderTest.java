package io.railyard.diagnose.logs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The lines an input is split into, whatever the buffer boundaries fall on, and how a failing input or consumer ends it. */
@Timeout(30)
class LineReaderTest {
    private static final int MAX = LineReader.MAX_LINE;

    /** Line lengths around every boundary the reader has: empty, short, MAX_LINE and its neighbours, more than a buffer. */
    private static final int[] LENGTHS = {0, 1, 80, 300, MAX - 2, MAX - 1, MAX, MAX + 1, 2 * MAX - 1, 2 * MAX, 2 * MAX + 7, 5 * MAX};

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void randomInputsSplitAsLfSeparatedLinesCutToMaxLine(long seed) throws IOException {
        Random random = new Random(seed);
        ByteArrayOutputStream input = new ByteArrayOutputStream();
        int lines = 40 + random.nextInt(60);
        for (int i = 0; i < lines; i++) {
            int length = random.nextInt(3) == 0 ? LENGTHS[random.nextInt(LENGTHS.length)] : random.nextInt(200);
            byte[] line = new byte[length];
            for (int b = 0; b < length; b++) {
                line[b] = (byte) (' ' + random.nextInt(95));
            }
            input.writeBytes(line);
            if (i < lines - 1 || random.nextBoolean()) {
                input.writeBytes(random.nextInt(4) == 0 ? new byte[] {'\r', '\n'} : new byte[] {'\n'});
            }
        }

        assertThat(read(input.toByteArray())).isEqualTo(expected(input.toByteArray()));
    }

    @Test
    void aLineEndingExactlyAtTheBufferBoundaryAndTheCrOfItsCrlfInTheNextAreReadOnce() throws IOException {
        String first = "a".repeat(2 * MAX - 2) + "\r";
        byte[] input = (first + "\nsecond\n").getBytes(StandardCharsets.ISO_8859_1);

        assertThat(read(input)).containsExactly("a".repeat(MAX), "second");
    }

    @Test
    void theLastLineWithoutItsLfIsCutToMaxLineToo() throws IOException {
        for (int length : new int[] {MAX + 10, 2 * MAX - 1, 2 * MAX + 3, 7 * MAX}) {
            byte[] input = ("a\n" + "b".repeat(length)).getBytes(StandardCharsets.ISO_8859_1);

            assertThat(read(input)).as("a last line of %d bytes", length).containsExactly("a", "b".repeat(MAX));
        }
    }

    @Test
    void aFailingInputEndsTheReadingWithItsError() {
        InputStream failing = new InputStream() {
            private final InputStream lines = new ByteArrayInputStream("one\ntwo\n".getBytes(StandardCharsets.ISO_8859_1));

            @Override
            public int read() throws IOException {
                int b = lines.read();
                if (b < 0) {
                    throw new IOException("the disk went away");
                }
                return b;
            }
        };
        assertThatThrownBy(() -> LineReader.forEachLine(failing, line -> { }))
                .isInstanceOf(IOException.class).hasMessage("the disk went away");
    }

    @Test
    void anInputThatThrowsAnUncheckedExceptionDoesNotLeaveTheCallerWaiting() {
        InputStream broken = new InputStream() {
            @Override
            public int read() {
                throw new IllegalStateException("broken stream");
            }
        };

        assertThatThrownBy(() -> LineReader.forEachLine(broken, line -> { })).hasMessage("broken stream");
    }

    @Test
    void aConsumerThatFailsStopsTheReading() {
        InputStream endless = new InputStream() {
            @Override
            public int read() {
                return '\n';
            }

            @Override
            public int read(byte[] b, int off, int len) {
                Arrays.fill(b, off, off + len, (byte) '\n');
                return len;
            }
        };

        assertThatThrownBy(() -> LineReader.forEachLine(endless, line -> {
            if (line.number() == 1_000) {
                throw new IllegalArgumentException("consumer gave up");
            }
        })).hasMessage("consumer gave up");
    }

    private static List<String> read(byte[] input) throws IOException {
        List<String> lines = new ArrayList<>();
        long count = LineReader.forEachLine(new ByteArrayInputStream(input), line -> {
            assertThat(line.number()).isEqualTo(lines.size() + 1);
            lines.add(line.text());
        });
        assertThat(count).isEqualTo(lines.size());
        return lines;
    }

    /** The reference: split at LF, no line after a final LF, each line's first MAX_LINE bytes without a trailing CR. */
    private static List<String> expected(byte[] input) {
        String text = new String(input, StandardCharsets.ISO_8859_1);
        List<String> lines = new ArrayList<>();
        int start = 0;
        while (start < text.length()) {
            int newline = text.indexOf('\n', start);
            int end = newline < 0 ? text.length() : newline;
            String line = text.substring(start, Math.min(end, start + MAX));
            lines.add(line.endsWith("\r") ? line.substring(0, line.length() - 1) : line);
            start = end + 1;
        }
        return lines;
    }
}
