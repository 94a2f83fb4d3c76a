package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.railyard.cli.pictures.PreflightHeatmap;
import io.railyard.operator.preflight.Link;
import io.railyard.operator.preflight.PreflightReport;
import io.railyard.operator.preflight.PreflightVerdict;
import io.railyard.testkit.Chromium;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code railyard preflight -o html} in a real browser: the heatmap's cells are the sweep's figures. */
class PreflightHeatmapIT {
    private static final String CELLS = """
            JSON.stringify([...document.querySelectorAll('g.cell')].map(g => ({client: g.dataset.client, server: g.dataset.server,
              hca: g.dataset.hca, verdict: g.dataset.verdict, percent: g.dataset.percent === undefined ? null : Number(g.dataset.percent),
              fill: getComputedStyle(g.querySelector('rect')).fill, title: g.querySelector('title').textContent,
              seen: g.querySelector('rect').getBoundingClientRect().width > 0})))""";

    @TempDir
    Path dir;

    @Test
    void eachCellIsAMeasuredLinkOfTheEmbeddedReportAndTheSuspectIsMarked() throws Exception {
        List<String> nodes = List.of("gpu-1", "gpu-2", "gpu-3", "gpu-4", "gpu-5", "gpu-6", "gpu-7", "gpu-8");
        List<Link> links = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            String client = nodes.get(i);
            String server = nodes.get((i + 1) % nodes.size());
            for (String hca : List.of("mlx5_0", "mlx5_1")) {
                boolean slow = client.equals("gpu-5") || server.equals("gpu-5"); // gpu-5's every link: the suspect
                if (client.equals("gpu-1") && hca.equals("mlx5_0")) {
                    links.add(Link.failed(client, server, hca, "ib_write_bw: Couldn't connect to gpu-2:18515", null));
                } else {
                    links.add(Link.measured(client, server, hca, hca, slow ? 151.3 : 389.6, 400.0, 80));
                }
            }
        }
        PreflightVerdict verdict = PreflightVerdict.judge(nodes, links, Map.of());
        Path page = dir.resolve("preflight.html");
        Files.writeString(page, PreflightHeatmap.html(verdict, Json.write(PreflightReport.json(verdict))));

        try (Chromium chromium = Browser.start()) {
            chromium.load(page);
            JsonNode cells = new ObjectMapper().readTree(chromium.evaluate(CELLS).asText());
            JsonNode report = new ObjectMapper().readTree(chromium.evaluate("document.getElementById('railyard-preflight').textContent").asText());

            assertThat(report).isEqualTo(new ObjectMapper().readTree(Json.write(PreflightReport.json(verdict))));
            assertThat(cells).hasSize(report.path("pairs").size());
            for (JsonNode pair : report.path("pairs")) {
                JsonNode cell = find(cells, pair.path("client").asText(), pair.path("server").asText(), pair.path("hca").asText());
                assertThat(cell.path("verdict").asText()).isEqualTo(pair.path("verdict").asText());
                assertThat(cell.path("percent").isNull() ? null : cell.path("percent").asDouble())
                        .isEqualTo(pair.path("percent").isNull() ? null : pair.path("percent").asDouble());
                assertThat(cell.path("seen").asBoolean()).isTrue();
                if (!pair.path("reason").isNull()) {
                    assertThat(cell.path("title").asText()).contains(pair.path("reason").asText());
                }
            }
            assertThat(find(cells, "gpu-1", "gpu-2", "mlx5_0").path("fill").asText()).isEqualTo("rgb(51, 51, 51)");
            assertThat(rgb(find(cells, "gpu-2", "gpu-3", "mlx5_0"))).satisfies(c -> assertThat(c[1]).isGreaterThan(2 * c[0])); // 97%: green
            assertThat(rgb(find(cells, "gpu-4", "gpu-5", "mlx5_1"))).satisfies(c -> assertThat(c[0]).isGreaterThan(2 * c[1])); // 38%: red
            assertThat(find(cells, "gpu-4", "gpu-5", "mlx5_1").path("verdict").asText()).isEqualTo("slow");
            Set<String> suspects = new TreeSet<>();
            report.path("nodes").forEach(n -> {
                if (!n.path("verdict").asText().equals("ok")) {
                    suspects.add(n.path("node").asText());
                }
            });
            assertThat(suspects).containsExactly("gpu-5");
            assertThat(chromium.evaluate("[...document.querySelectorAll('text.row-label')].filter(t => getComputedStyle(t).fill"
                    + " === 'rgb(198, 40, 40)').map(t => t.textContent).join(' ')").asText()).isEqualTo("gpu-5 gpu-5");
            assertThat(chromium.errors()).isEmpty();
            assertThat(chromium.requests()).containsExactly(page.toUri().toString());
            Browser.assertDrawn(chromium.screenshot(), "#333333", "#c62828");
        }
    }

    private static int[] rgb(JsonNode cell) {
        String[] parts = cell.path("fill").asText().replaceAll("[^0-9,]", "").split(",");
        return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2])};
    }

    private static JsonNode find(JsonNode cells, String client, String server, String hca) {
        for (JsonNode cell : cells) {
            if (cell.path("client").asText().equals(client) && cell.path("server").asText().equals(server) && cell.path("hca").asText().equals(hca)) {
                return cell;
            }
        }
        throw new AssertionError("no cell " + client + " → " + server + " " + hca);
    }
}
