package io.railyard.diagnose.logs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.OptionalDouble;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Odd inputs: CRLF, truncated lines, binary junk, a 10 MB line, gzip, endless input. */
class RobustnessTest {
    private static byte[] fixture() throws IOException {
        return Files.readAllBytes(Analyzed.TESTDATA.resolve("logs/nccl-socket-fallback-driver-stopped-01.log"));
    }

    @Test
    void aFileReadsLikeTheSameBytesAsAStream(@TempDir Path dir) throws IOException {
        String text = new String(fixture(), StandardCharsets.ISO_8859_1).repeat(200); // past the first buffer's 64 KiB
        Path file = Files.writeString(dir.resolve("rank-0.log"), text, StandardCharsets.ISO_8859_1);

        LogReport fromFile = LogAnalysis.analyze(file, OptionalDouble.empty());

        assertThat(fromFile.nccl()).isEqualTo(Analyzed.text(text).nccl());
        assertThat(fromFile.findings()).extracting(Finding::id).contains("ib-no-device", "socket-fallback");
    }

    @Test
    void crlfLinesReadTheSame() throws IOException {
        String text = new String(fixture(), StandardCharsets.ISO_8859_1);
        LogReport crlf = Analyzed.text(text.replace("\n", "\r\n"));

        assertThat(crlf.nccl()).isEqualTo(Analyzed.text(text).nccl());
        assertThat(crlf.nccl().bootstrapInterface()).isEqualTo("eno1");
    }

    @Test
    void truncatedLastLineAndBinaryJunkDoNotStopTheAnalysis() throws IOException {
        byte[] junk = new byte[100_000];
        new Random(7).nextBytes(junk);
        ByteArrayOutputStream input = new ByteArrayOutputStream();
        input.write(junk);
        input.write('\n');
        input.write(fixture());
        input.write("gpu-a:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/Ro".getBytes(StandardCharsets.US_ASCII));

        LogReport report = Analyzed.bytes(input.toByteArray(), OptionalDouble.empty());

        assertThat(report.nccl().transport()).isEqualTo("socket");
        assertThat(report.nccl().fallback()).isTrue();
    }

    @Test
    void tenMegabyteLineIsCutNotHeld() throws IOException {
        byte[] line = new byte[10 * 1024 * 1024];
        Arrays.fill(line, (byte) 'x');
        ByteArrayOutputStream input = new ByteArrayOutputStream();
        input.write(line);
        input.write('\n');
        input.write(fixture());

        LogReport report = Analyzed.bytes(input.toByteArray(), OptionalDouble.empty());

        assertThat(report.nccl().fallback()).isTrue();
        assertThat(finding(report).evidence().getFirst().line()).isEqualTo(6); // line numbers still count the long line
    }

    private static Finding finding(LogReport report) {
        return Analyzed.finding(report, "ib-no-device");
    }

    @Test
    void gzipIsReadLikeText() throws IOException {
        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(compressed)) {
            gzip.write(fixture());
        }

        LogReport report = Analyzed.bytes(compressed.toByteArray(), OptionalDouble.empty());

        assertThat(report.kind()).isEqualTo("nccl-log");
        assertThat(report.nccl().fallback()).isTrue();
    }

    @Test
    void memoryStaysBoundedOnALongInput() throws IOException {
        byte[] chunk = "gpu-a:1:2 [3] NCCL INFO Channel 01/0 : 3[3] -> 11[3] [send] via NET/IB/3/GDRDMA\n".getBytes(StandardCharsets.US_ASCII);
        long lines = 3_000_000;
        InputStream endless = new InputStream() {
            long position;

            @Override
            public int read() {
                return position < lines * chunk.length ? chunk[(int) (position++ % chunk.length)] : -1;
            }

            @Override
            public int read(byte[] buffer, int offset, int length) {
                int n = 0;
                while (n < length && position < lines * chunk.length) {
                    buffer[offset + n++] = chunk[(int) (position++ % chunk.length)];
                }
                return n == 0 ? -1 : n;
            }
        };

        LogReport report = LogAnalysis.analyze("endless", endless, OptionalDouble.empty());

        assertThat(report.nccl().netConnections()).isEqualTo(lines);
        assertThat(report.findings()).hasSize(1);
    }
}
