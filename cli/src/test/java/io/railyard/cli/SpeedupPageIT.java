package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.railyard.cli.pictures.SpeedupPage;
import io.railyard.cli.speedup.CollectiveRun;
import io.railyard.cli.speedup.SpeedupPair;
import io.railyard.cli.speedup.SpeedupReport;
import io.railyard.testkit.Chromium;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code railyard speedup -o html} in a real browser: every pair drawn, its bars the report's figures, the claims shown. */
class SpeedupPageIT {
    private static final String BARS = """
            JSON.stringify([...document.querySelectorAll('g.pair')].map(g => ({client: g.dataset.client, server: g.dataset.server,
              bars: [...g.querySelectorAll('g.bar')].map(b => ({path: b.dataset.path, gbps: Number(b.dataset.gbps),
                width: b.querySelector('rect').getBoundingClientRect().width, fill: getComputedStyle(b.querySelector('rect')).fill})),
              missing: [...g.querySelectorAll('text.bar-missing')].map(t => t.textContent)})))""";

    @TempDir
    Path dir;

    @Test
    void everyPairIsDrawnWithTheReportsFiguresAndTheClaims() throws Exception {
        SpeedupPair.Path rdma = new SpeedupPair.Path(370.28, 1.47, 1.014, null, null, null);
        SpeedupPair.Path tcp = new SpeedupPair.Path(18.545, 26.0, 0.977, 0.535, 5L, null);
        List<SpeedupPair> pairs = List.of(new SpeedupPair("gpu-1", "gpu-2", rdma, tcp),
                new SpeedupPair("gpu-2", "gpu-3", new SpeedupPair.Path(185.14, 1.5, 1.014, null, null, null), new SpeedupPair.Path(40.2, 20.0, 1.2, 0.8, 0L, null)),
                new SpeedupPair("gpu-3", "gpu-1", SpeedupPair.Path.failed("not measured: the pair has a node without an RDMA device"), tcp));
        List<CollectiveRun> collectives = List.of(
                new CollectiveRun(CollectiveRun.Variant.GPUDIRECT, "job-gdr", List.of(new CollectiveRun.Row(1L << 30, 11000, 183.02)), null),
                new CollectiveRun(CollectiveRun.Variant.SOCKETS, "job-sockets", List.of(new CollectiveRun.Row(1L << 30, 60000, 33.55)), null));
        SpeedupReport report = new SpeedupReport(pairs, collectives, 3);
        Path page = dir.resolve("speedup.html");
        Files.writeString(page, SpeedupPage.html(report, Json.write(report.json())));

        try (Chromium chromium = Browser.start()) {
            chromium.load(page);
            ObjectMapper json = new ObjectMapper();
            JsonNode embedded = json.readTree(chromium.evaluate("document.getElementById('railyard-speedup').textContent").asText());
            assertThat(embedded).isEqualTo(json.readTree(Json.write(report.json())));
            JsonNode drawn = json.readTree(chromium.evaluate(BARS).asText());
            assertThat(drawn).hasSize(embedded.path("pairs").size());
            for (int i = 0; i < drawn.size(); i++) {
                JsonNode pair = embedded.path("pairs").get(i);
                JsonNode shown = drawn.get(i);
                assertThat(shown.path("client").asText()).isEqualTo(pair.path("client").asText());
                for (JsonNode bar : shown.path("bars")) {
                    assertThat(bar.path("gbps").asDouble()).isEqualTo(pair.path(bar.path("path").asText()).path("gbps").asDouble());
                    assertThat(bar.path("width").asDouble()).isPositive();
                }
            }
            // one scale: the widest RDMA bar against a TCP bar of a twentieth of it
            JsonNode first = drawn.get(0).path("bars");
            assertThat(first.get(0).path("width").asDouble() / first.get(1).path("width").asDouble()).isCloseTo(370.28 / 18.545, org.assertj.core.data.Offset.offset(0.5));
            assertThat(first.get(0).path("fill").asText()).isEqualTo("rgb(21, 101, 192)");
            assertThat(first.get(1).path("fill").asText()).isEqualTo("rgb(239, 108, 0)");
            assertThat(drawn.get(2).path("missing").get(0).asText()).isEqualTo("RDMA not measured: the pair has a node without an RDMA device");
            JsonNode claims = json.readTree(chromium.evaluate("JSON.stringify([...document.querySelectorAll('li.claim')].map(l => ({id: l.dataset.claim,"
                    + " holds: l.dataset.holds, text: l.textContent})))").asText());
            assertThat(claims).hasSize(embedded.path("claims").size());
            for (int i = 0; i < claims.size(); i++) {
                JsonNode claim = embedded.path("claims").get(i);
                assertThat(claims.get(i).path("text").asText()).endsWith(claim.path("line").asText());
                assertThat(claims.get(i).path("holds").asText()).isEqualTo(claim.path("holds").isNull() ? "" : claim.path("holds").asText());
            }
            assertThat(chromium.evaluate("document.querySelectorAll('svg.collective g.size').length").asInt()).isEqualTo(2);
        }
    }
}
