package io.railyard.diagnose.logs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * NCCL's lines read by hand are read as the regexes they replace read them: its connection lines, and the GDR word of
 * its rings' line; on every shipped log's lines, and cut.
 */
class ConnectionLineTest {
    private static final Pattern CONNECTION = Pattern.compile(
            "(?:Channel|Ring) (\\d+)(?:/\\d+)? : (\\d+)(?:\\[(\\w+)\\])? -> (\\d+)(?:\\[(\\w+)\\])? \\[(send|receive)\\] via NET/([\\w.]+)/(\\d+)");
    private static final Pattern PROCESS = Pattern.compile("^\\s*(\\S+):(\\d+):\\d+ \\[\\d+\\]");

    private static final Pattern RINGS_GDR = Pattern.compile("\\bGDR (\\d)\\b");

    @Test
    void theRingsGdrWordIsReadAsByTheRegex() throws IOException {
        List<String> lines = shippedLines();
        lines.addAll(List.of("x:1:2 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 1", "GDR 0", "GDR 1x", "xGDR 1", "_GDR 1",
                "GDR 1_", "GDR 12", "GDR a", "GDR ", "GDR 1 GDR 0", "GDRR 1 GDR 0", "\u00e9GDR 1 and GDR 0", "GDR 1\u00e9", "(GDR 1)"));
        int matches = 0;
        for (String text : withCuts(lines)) {
            Line line = new Line();
            line.reset(text, 0, text.length(), 1);
            Matcher m = RINGS_GDR.matcher(text);
            int digit = NcclLogAnalyzer.ringsGdrDigit(line);
            if (m.find()) {
                matches++;
                assertThat(digit).as(text).isEqualTo(m.start(1));
            } else {
                assertThat(digit).as(text).isEqualTo(-1);
            }
        }
        assertThat(matches).isGreaterThan(10);
    }

    @Test
    void everyShippedLineAndItsCutsAreReadAsByTheRegexes() throws IOException {
        List<String> lines = shippedLines();
        lines.addAll(List.of( // the shapes NCCL prints, and near misses
                "gpu-node-0:40002:41002 [2] NCCL INFO Channel 02/0 : 2[2] -> 10[2] [send] via NET/IB/1/GDRDMA",
                "host-a:7:8 [0] NCCL INFO Ring 00 : 0 -> 1 [receive] via NET/Socket/0",
                "  a:b:1:2 [3] NCCL INFO Channel 01 : 2[c7000] -> 0[87000] [send] via NET/IBext_v8/2/GDRDMA",
                "x:1:2 [0] Channel 1/ : 2 -> 3 [send] via NET/IB/1", "x:1:2 [0] Channel 1 : 2[] -> 3 [send] via NET/IB/1",
                "x:1:2 [0] Channel 1 : 2 -> 3 [send] via NET/IB/", "x:1:2 [0] Channel 1 : 2 -> 3 [send] via NET//1",
                "Ring 7 : 1 -> 2 via NET/IB/0 Channel 3 : 4 -> 5 [send] via NET/a.b/12", "x::2 [0] Ring 0 : 1 -> 2 [send] via NET/x/3",
                "\tx:1:2 [0]", "x:1:2\t[0]", "x:1:2 [a]", ":1:2 [0]", "x:1: [0]"));
        int connections = 0;
        for (String text : withCuts(lines)) {
            Matcher m = CONNECTION.matcher(text);
            ConnectionLine read = ConnectionLine.find(text);
            if (m.find()) {
                connections++;
                assertThat(read).as(text).isEqualTo(new ConnectionLine(ConnectionLine.process(text), m.group(1), m.group(2), m.group(3),
                        m.group(4), m.group(5), m.group(6).equals("receive"), m.group(7), m.group(8)));
            } else {
                assertThat(read).as(text).isNull();
            }
            Matcher process = PROCESS.matcher(text);
            assertThat(ConnectionLine.process(text)).as(text).isEqualTo(process.find() ? process.group(1) + ":" + process.group(2) : null);
        }
        assertThat(connections).as("connection lines among them").isGreaterThan(100);
    }

    private static List<String> shippedLines() throws IOException {
        List<String> lines = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Analyzed.TESTDATA.resolve("logs"))) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                lines.addAll(List.of(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1).split("\n")));
            }
        }
        return lines;
    }

    /** Each line, and four cuts of it at random points, as pastes are cut. */
    private static List<String> withCuts(List<String> lines) {
        Random random = new Random(7);
        List<String> variants = new ArrayList<>();
        for (String line : lines) {
            variants.add(line);
            for (int i = 0; i < 4 && !line.isEmpty(); i++) {
                variants.add(line.substring(0, random.nextInt(line.length())));
                variants.add(line.substring(random.nextInt(line.length())));
            }
        }
        return variants;
    }
}
