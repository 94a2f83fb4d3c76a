package io.railyard.diagnose.logs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.OptionalDouble;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Reading ahead ends as the input does: at its end, with its error, when closed; LineReaderTest checks its lines. */
@Timeout(60)
class ReadAheadTest {
    private static final int BLOCK = LineReader.WINDOW;

    @Test
    void anErrorReadingReachesTheAnalysisAfterTheLinesBeforeIt() throws IOException {
        InputStream failing = new InputStream() {
            private int left = 3 * BLOCK + 10;

            @Override
            public int read() throws IOException {
                if (left == 0) {
                    throw new IOException("Input/output error");
                }
                left--;
                return left % 100 == 0 ? '\n' : 'x';
            }
        };
        long[] lines = {0};
        try (ReadAhead blocks = new ReadAhead(failing, BLOCK)) {
            assertThatThrownBy(() -> LineReader.forEachLine(blocks, line -> lines[0]++))
                    .isInstanceOf(IOException.class).hasMessage("Input/output error");
        }
        assertThat(lines[0]).as("lines of the blocks read before the error").isGreaterThan(3 * BLOCK / 100 - 100);
    }

    @Test
    void theThreadEndsWithTheInputAndWhenClosedBeforeIt() throws Exception {
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
        ReadAhead blocks = new ReadAhead(endless, BLOCK);
        assertThat(blocks.next().length()).isEqualTo(BLOCK);
        blocks.close();
        awaitNoReaders();

        try (ReadAhead whole = new ReadAhead(InputStream.nullInputStream(), BLOCK)) {
            assertThat(whole.next().length()).isZero();
            assertThat(whole.next()).isNull();
            assertThat(whole.next()).as("after the end").isNull();
        }
        awaitNoReaders();
    }

    @Test
    void aCutGzipFileIsAnErrorNotAWait(@TempDir Path dir) throws IOException {
        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        try (OutputStream gzip = new GZIPOutputStream(compressed)) {
            gzip.write(Files.readAllBytes(Analyzed.TESTDATA.resolve("logs/corpus/nccl-tests-wrong-1048576-cray-ofi-369-01.log")));
        }
        Path cut = Files.write(dir.resolve("nccl.log.gz"), Arrays.copyOf(compressed.toByteArray(), compressed.size() / 2));

        assertThatThrownBy(() -> LogAnalysis.analyze(cut, OptionalDouble.empty())).isInstanceOf(IOException.class);
    }

    private static void awaitNoReaders() throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
        while (readers() > 0 && Instant.now().isBefore(deadline)) {
            Thread.sleep(10);
        }
        assertThat(readers()).as("read-ahead threads alive").isZero();
    }

    private static long readers() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("railyard-read-ahead")).count();
    }
}
