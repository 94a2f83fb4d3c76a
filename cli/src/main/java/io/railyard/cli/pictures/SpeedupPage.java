package io.railyard.cli.pictures;

import io.railyard.cli.speedup.CollectiveRun;
import io.railyard.cli.speedup.SpeedupPair;
import io.railyard.cli.speedup.SpeedupReport;
import java.util.List;
import java.util.Locale;

/**
 * {@code railyard speedup -o html}: one page, the claims first, then a pair of bars per node pair (RDMA beside TCP, on
 * one bandwidth scale), then the all-reduce's bus bandwidth per size for each network setting. The report as
 * {@code -o json} writes it is in the page too, for a program.
 */
public final class SpeedupPage {
    private static final double LABEL = 180;
    private static final double WIDTH = 640;
    private static final double BAR = 14;
    static final String RDMA = "#1565c0";
    static final String TCP = "#ef6c00";

    private SpeedupPage() {}

    /** @param reportJson the report as {@code -o json} writes it, embedded in the page for a program */
    public static String html(SpeedupReport report, String reportJson) {
        Markup body = new Markup();
        body.element("p", (report.passed() ? "PASS" : "FAIL") + ": " + report.measured() + " of " + report.pairs().size()
                + " pairs measured over both RDMA and TCP", "class", report.passed() ? "pass" : "fail");
        body.element("h2", "Claims").open("ul");
        for (SpeedupReport.Claim claim : report.claims()) {
            String verdict = claim.holds() == null ? "not checked" : claim.holds() ? "holds" : "fails";
            body.open("li", "class", "claim", "data-claim", claim.id(), "data-holds", claim.holds() == null ? "" : claim.holds())
                    .element("strong", verdict, "style", "color:" + (claim.holds() == null ? "#757575" : claim.holds() ? "#2e7d32" : "#c62828"))
                    .text(" " + claim.line()).close("li");
        }
        body.close("ul");
        body.element("h2", "Bandwidth per pair");
        body.open("p").element("span", "■ RDMA (ib_write_bw, every HCA)", "style", "color:" + RDMA).text("  ")
                .element("span", "■ TCP (iperf3, as many streams)", "style", "color:" + TCP).close("p");
        body.raw(pairBars(report.pairs()));
        for (CollectiveRun run : report.collectives()) {
            body.element("h2", "All-reduce: " + run.variant().title);
            body.raw(run.error() != null ? "<p>" + escape(run.error()) + "</p>" : collectiveBars(run, report.collectives()));
        }
        body.open("script", "type", "application/json", "id", "railyard-speedup")
                .raw(reportJson.replace("<", "\\u003c")).close("script");
        return Markup.page("railyard speedup", body.toString());
    }

    private static String pairBars(List<SpeedupPair> pairs) {
        double max = pairs.stream().flatMap(p -> java.util.stream.Stream.of(p.rdma(), p.tcp())).filter(SpeedupPair.Path::measured)
                .mapToDouble(SpeedupPair.Path::gbps).max().orElse(1);
        double rowHeight = 2 * BAR + 14;
        Markup svg = new Markup();
        svg.open("svg", "xmlns", "http://www.w3.org/2000/svg", "width", LABEL + WIDTH + 120, "height", rowHeight * pairs.size() + 8,
                "font-family", "sans-serif", "font-size", 11, "class", "pairs");
        for (int i = 0; i < pairs.size(); i++) {
            SpeedupPair pair = pairs.get(i);
            double y = 4 + rowHeight * i;
            svg.open("g", "class", "pair", "data-client", pair.client(), "data-server", pair.server());
            svg.element("text", pair.client() + " → " + pair.server(), "x", LABEL - 6, "y", y + BAR + 4, "text-anchor", "end");
            bar(svg, "rdma", pair.rdma(), y, max, RDMA);
            bar(svg, "tcp", pair.tcp(), y + BAR + 2, max, TCP);
            svg.close("g");
        }
        return svg.close("svg").toString();
    }

    private static void bar(Markup svg, String path, SpeedupPair.Path figures, double y, double max, String colour) {
        if (!figures.measured()) {
            svg.element("text", (path.equals("rdma") ? "RDMA " : "TCP ") + figures.error(), "x", LABEL, "y", y + BAR - 3, "fill", "#c62828",
                    "class", "bar-missing", "data-path", path);
            return;
        }
        double width = Math.max(1, figures.gbps() / max * WIDTH);
        svg.open("g", "class", "bar", "data-path", path, "data-gbps", String.valueOf(figures.gbps())); // exact, as in the JSON
        svg.element("title", String.format(Locale.ROOT, "%s %.2f Gb/s", path.equals("rdma") ? "RDMA" : "TCP", figures.gbps()));
        svg.empty("rect", "x", LABEL, "y", y, "width", width, "height", BAR, "fill", colour);
        svg.element("text", String.format(Locale.ROOT, "%.1f Gb/s", figures.gbps()), "x", LABEL + width + 4, "y", y + BAR - 3);
        svg.close("g");
    }

    private static String collectiveBars(CollectiveRun run, List<CollectiveRun> all) {
        double max = all.stream().flatMap(r -> r.rows().stream()).mapToDouble(CollectiveRun.Row::busGBps).max().orElse(1);
        Markup svg = new Markup();
        svg.open("svg", "xmlns", "http://www.w3.org/2000/svg", "width", LABEL + WIDTH + 120, "height", (BAR + 4) * run.rows().size() + 8,
                "font-family", "sans-serif", "font-size", 11, "class", "collective", "data-variant", run.variant().id);
        for (int i = 0; i < run.rows().size(); i++) {
            CollectiveRun.Row row = run.rows().get(i);
            double y = 4 + (BAR + 4) * i;
            double width = Math.max(1, row.busGBps() / max * WIDTH);
            svg.open("g", "class", "size", "data-bytes", String.valueOf(row.bytes()), "data-busbw", String.valueOf(row.busGBps()));
            svg.element("text", CollectiveRun.size(row.bytes()), "x", LABEL - 6, "y", y + BAR - 3, "text-anchor", "end");
            svg.empty("rect", "x", LABEL, "y", y, "width", width, "height", BAR, "fill", run.variant() == CollectiveRun.Variant.SOCKETS ? TCP : RDMA);
            svg.element("text", String.format(Locale.ROOT, "%.2f GB/s", row.busGBps()), "x", LABEL + width + 4, "y", y + BAR - 3);
            svg.close("g");
        }
        return svg.close("svg").toString();
    }

    private static String escape(String text) {
        return new Markup().text(text).toString();
    }
}
