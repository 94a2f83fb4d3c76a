package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.railyard.cli.pictures.FabricLayout;
import io.railyard.testkit.Chromium;
import io.railyard.testkit.SyntheticFabric;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code railyard fabric -o html|svg} loaded in a real browser: what a person sees on the page. */
class FabricPictureIT {
    private static final Path IBSIM = Path.of(System.getProperty("railyard.repo", "..")).resolve("testdata/ibsim");
    /** Each box and cable as drawn: its names, the findings on it, its colour and its size on the screen. */
    private static final String DRAWN = """
            JSON.stringify([...document.querySelectorAll('g.box, g.link')].map(g => {
              const shape = g.querySelector('rect, line'); const r = shape.getBoundingClientRect();
              return {kind: g.classList.contains('box') ? 'box' : 'link', name: g.dataset.name || '', from: g.dataset.from || '',
                to: g.dataset.to || '', findings: g.dataset.findings || '', faulty: g.dataset.faulty || '',
                colour: getComputedStyle(shape).stroke, title: g.querySelector('title').textContent,
                seen: r.width + r.height > 0 && r.bottom > 0 && r.right > 0};
            }))""";

    @TempDir
    static Path dir;
    static Chromium chromium;

    @BeforeAll
    static void browser() throws Exception {
        chromium = Browser.start();
    }

    @AfterAll
    static void close() throws Exception {
        if (chromium != null) {
            chromium.close();
        }
    }

    @Test
    void everySwitchAndHostIsDrawnAndEachPlantedFaultOnItsCableOrPort() throws Exception {
        JsonNode report = new ObjectMapper().readTree(fabric("fattree-faults", "-o", "json").out());
        Path page = write("fattree-faults.html", fabric("fattree-faults", "-o", "html").out());

        chromium.load(page);
        List<JsonNode> drawn = drawn();

        Set<String> expected = new TreeSet<>();
        report.path("switches").forEach(s -> expected.add(s.path("name").asText()));
        report.path("hosts").forEach(h -> expected.add(h.path("host").asText()));
        assertThat(drawn.stream().filter(d -> d.path("kind").asText().equals("box")).map(d -> d.path("name").asText()))
                .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(drawn).allSatisfy(d -> assertThat(d.path("seen").asBoolean()).as(d.toString()).isTrue());
        // the faults planted in testdata/ibsim/fattree-faults (README), each on the cable or the box it is about
        fault(link(drawn, "spine-02", "leaf-01"), "degraded-link", "rgb(255, 127, 14)");
        fault(link(drawn, "leaf-01", "gpu-node-02"), "degraded-link", "rgb(255, 127, 14)");
        fault(link(drawn, "spine-01", "leaf-02"), "port-errors", "rgb(148, 103, 189)");
        fault(link(drawn, "leaf-04", "gpu-node-06"), "port-errors", "rgb(148, 103, 189)");
        fault(link(drawn, "spine-02", "leaf-03"), "port-errors", "rgb(148, 103, 189)");
        fault(box(drawn, "leaf-03"), "port-down uplink-asymmetry", "rgb(214, 39, 40)");
        fault(box(drawn, "leaf-04"), "port-down", "rgb(214, 39, 40)");
        fault(box(drawn, "spine-02"), "port-down", "rgb(214, 39, 40)");
        fault(box(drawn, "gpu-node-07"), "missing-hca", "rgb(227, 119, 194)");
        assertThat(link(drawn, "spine-01", "leaf-01").path("findings").asText()).isEmpty();
        // every finding's text is on the page's hover texts, and in its table
        String titles = String.join("\n", drawn.stream().map(d -> d.path("title").asText()).toList());
        report.path("findings").forEach(f -> assertThat(titles).contains(f.path("summary").asText()));
        assertThat(chromium.evaluate("document.querySelectorAll('tr.finding').length").asInt()).isEqualTo(report.path("findings").size());
        assertThat(chromium.errors()).isEmpty();
        assertThat(chromium.requests()).containsExactly(page.toUri().toString());
        Browser.assertDrawn(chromium.screenshot(), "#d62728", "#ff7f0e", "#9467bd", "#e377c2");
    }

    @Test
    void theSvgAloneIsThePictureToo() throws Exception {
        Path picture = write("fattree.svg", fabric("fattree", "-o", "svg").out());

        chromium.load(picture);

        List<JsonNode> drawn = drawn();
        assertThat(drawn.stream().filter(d -> d.path("kind").asText().equals("box"))).hasSize(6 + 8);
        assertThat(drawn).noneMatch(d -> !d.path("findings").asText().isEmpty());
        assertThat(chromium.errors()).isEmpty();
        Browser.assertDrawn(chromium.screenshot(), "#e8eef7", "#eef7ee"); // the switches' and the hosts' boxes
    }

    @Test
    void aTwoThousandHostFabricIsDrawnAsGroupsWithItsFaultyHostNamed() throws Exception {
        Path topology = dir.resolve("2000.txt");
        new SyntheticFabric(2000, 8, 100, 500, 100, 20).writeTo(topology);
        // one host cable trained on one lane: its leaf's side and its HCA's side
        List<String> lines = new ArrayList<>(Files.readAllLines(topology));
        int hcaSide = lineOfHca(lines, "gpu-node-0042 mlx5_3");
        for (int i = 0; i < lines.size(); i++) {
            if (i == hcaSide || lines.get(i).contains("\"gpu-node-0042 mlx5_3\" lid")) {
                lines.set(i, lines.get(i).replace("4xNDR", "1xNDR"));
            }
        }
        Files.write(topology, lines);

        CommandRun run = CommandRun.of("fabric", "--ibnetdiscover", topology.toString(), "-o", "html");
        Path page = write("2000.html", run.out());
        chromium.load(page);
        List<JsonNode> drawn = drawn();

        assertThat(Files.size(page)).isLessThan(1_000_000);
        assertThat(drawn.stream().filter(d -> d.path("kind").asText().equals("box")).count()).isLessThanOrEqualTo(4L * FabricLayout.MAX_GROUPS_IN_A_ROW);
        JsonNode faulty = drawn.stream().filter(d -> d.path("faulty").asText().contains("gpu-node-0042")).findFirst().orElseThrow();
        assertThat(faulty.path("name").asText()).contains("hosts");
        assertThat(faulty.path("findings").asText()).isEqualTo("degraded-link");
        assertThat(drawn).anySatisfy(d -> {
            assertThat(d.path("findings").asText()).isEqualTo("degraded-link");
            assertThat(d.path("title").asText()).contains("gpu-node-0042 mlx5_3 port 1");
        });
        assertThat(chromium.errors()).isEmpty();
        Browser.assertDrawn(chromium.screenshot(), "#ff7f0e");
    }

    @Test
    void switchesNamedByTheirGuidsReadApartOnTheirBoxes() throws Exception {
        // factory descriptions name no switch: each is named sw-<GUID>, and the fixture's GUIDs differ in their last characters
        String topology = Files.readString(Path.of(file("fattree", "ibnetdiscover"))).replaceAll("MF0;[^\"]*", "SwitchIB Mellanox Technologies");
        Path input = write("guid-named.txt", topology);
        Path page = write("guid-named.html", CommandRun.of("fabric", "--ibnetdiscover", input.toString(), "-o", "html").out());

        chromium.load(page);
        JsonNode shown = new ObjectMapper().readTree(chromium.evaluate("""
                JSON.stringify([...document.querySelectorAll('g.box.switch')].map(g => ({name: g.dataset.name,
                  title: g.querySelector(':scope > title').textContent, label: g.querySelector('text').textContent, overflows: g.querySelector('text').getBBox().width > g.querySelector('rect').getBBox().width})))""")
                .asText());

        List<String> labels = StreamSupport.stream(shown.spliterator(), false).map(s -> s.path("label").asText()).toList();
        assertThat(labels).hasSize(6).doesNotHaveDuplicates().allSatisfy(label -> assertThat(label).startsWith("sw-").contains("…"));
        shown.forEach(s -> {
            String name = s.path("name").asText();
            assertThat(name).startsWith("sw-b8cef60300a1b2");
            assertThat(s.path("label").asText()).endsWith(name.substring(name.length() - 6));
            // the box's own tooltip: its whole name and GUID, to tell which switch a cut name is
            assertThat(s.path("title").asText()).startsWith(name + " (GUID 0x" + name.substring("sw-".length()) + ")");
            assertThat(s.path("overflows").asBoolean()).as(s.toString()).isFalse();
        });
        assertThat(chromium.errors()).isEmpty();
    }

    /** The index of the CA port line of an HCA: the line after its {@code Ca} line. */
    private static int lineOfHca(List<String> lines, String hca) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("Ca\t") && lines.get(i).endsWith("\"" + hca + "\"")) {
                return i + 1;
            }
        }
        throw new IllegalArgumentException(hca + " is not in the fabric");
    }

    private static List<JsonNode> drawn() throws Exception {
        JsonNode all = new ObjectMapper().readTree(chromium.evaluate(DRAWN).asText());
        return StreamSupport.stream(all.spliterator(), false).toList();
    }

    private static JsonNode link(List<JsonNode> drawn, String from, String to) {
        return drawn.stream().filter(d -> d.path("from").asText().equals(from) && d.path("to").asText().equals(to)).findFirst()
                .orElseThrow(() -> new AssertionError("no cable drawn from " + from + " to " + to));
    }

    private static JsonNode box(List<JsonNode> drawn, String name) {
        return drawn.stream().filter(d -> d.path("kind").asText().equals("box") && d.path("name").asText().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no box " + name));
    }

    private static void fault(JsonNode drawn, String findings, String colour) {
        assertThat(drawn.path("findings").asText()).isEqualTo(findings);
        assertThat(drawn.path("colour").asText()).isEqualTo(colour);
    }

    private static CommandRun fabric(String fabric, String... more) {
        List<String> args = new ArrayList<>(List.of("fabric", "--ibnetdiscover", file(fabric, "ibnetdiscover"), "--iblinkinfo",
                file(fabric, "iblinkinfo"), "--ibqueryerrors", file(fabric, "ibqueryerrors")));
        args.addAll(List.of(more));
        return CommandRun.of(args.toArray(String[]::new));
    }

    private static String file(String fabric, String tool) {
        return IBSIM.resolve(fabric).resolve(tool + ".txt").toString();
    }

    private static Path write(String name, String content) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, content, StandardCharsets.UTF_8);
        return file;
    }
}
