package io.railyard.cli.pictures;

import io.railyard.operator.preflight.Link;
import io.railyard.operator.preflight.PreflightVerdict;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code railyard preflight -o html}: the sweep as a node × node heatmap, one per HCA tested, each cell the measured
 * share of line rate from the client (row) to the server (column); slow cells outlined, failed ones crossed, both with
 * their reason on hover; suspect nodes in red. The same data as {@code -o json} is in the page, for a program.
 */
public final class PreflightHeatmap {
    private static final double LABEL = 120;
    private static final String FAILED = "#333333";

    private PreflightHeatmap() {}

    /** @param reportJson the sweep as {@code -o json} writes it, embedded in the page for a program */
    public static String html(PreflightVerdict verdict, String reportJson) {
        List<String> nodes = verdict.nodes().stream().map(PreflightVerdict.NodeVerdict::node).sorted().toList();
        Set<String> suspects = new TreeSet<>();
        verdict.nodes().stream().filter(node -> !node.ok()).forEach(node -> suspects.add(node.node()));
        Map<String, List<Link>> byHca = new LinkedHashMap<>();
        verdict.links().stream().sorted(java.util.Comparator.comparing(PreflightHeatmap::hcaOf))
                .forEach(link -> byHca.computeIfAbsent(hcaOf(link), h -> new ArrayList<>()).add(link));
        Markup body = new Markup();
        body.element("p", (verdict.passed() ? "PASS: " : "FAIL: ") + verdict.summary(), "class", verdict.passed() ? "pass" : "fail");
        if (!suspects.isEmpty()) {
            body.open("p").text("Suspect nodes: ").element("strong", String.join(", ", suspects), "style", "color:#c62828").close("p");
        }
        body.element("p", "Each cell: the client (row) sending to the server (column), as a share of the line rate. Outlined: slow;"
                + " crossed: failed; grey: not tested in this sweep. Hover a cell for its figures.");
        for (Map.Entry<String, List<Link>> hca : byHca.entrySet()) {
            body.element("h2", "HCA " + hca.getKey());
            body.raw(matrix(nodes, suspects, hca.getKey(), hca.getValue()));
        }
        body.element("h2", "Nodes").open("table").open("tr").element("th", "node").element("th", "verdict").element("th", "reason").close("tr");
        verdict.nodes().forEach(node -> body.open("tr", "class", "node", "data-node", node.node())
                .element("td", node.node(), "style", node.ok() ? null : "color:#c62828;font-weight:bold").element("td", node.verdict())
                .element("td", node.reason() == null ? "" : node.reason()).close("tr"));
        body.close("table");
        // the report as -o json writes it; '<' escaped so that no string in it can end the script element
        body.open("script", "type", "application/json", "id", "railyard-preflight")
                .raw(reportJson.replace("<", "\\u003c")).close("script");
        return Markup.page("railyard preflight", body.toString());
    }

    private static String hcaOf(Link link) {
        return link.hca() == null ? "(any)" : link.hca();
    }

    private static String matrix(List<String> nodes, Set<String> suspects, String hca, List<Link> links) {
        double cell = Math.max(8, Math.min(28, 900.0 / Math.max(1, nodes.size())));
        double size = LABEL + cell * nodes.size();
        Markup svg = new Markup();
        svg.open("svg", "xmlns", "http://www.w3.org/2000/svg", "width", size + 48, "height", size + 8, "font-family", "sans-serif",
                "font-size", Markup.number(Math.min(11, cell * 0.8)), "class", "heatmap", "data-hca", hca);
        for (int i = 0; i < nodes.size(); i++) {
            String node = nodes.get(i);
            String colour = suspects.contains(node) ? "#c62828" : "#333";
            String weight = suspects.contains(node) ? "bold" : null;
            svg.element("text", node, "x", LABEL - 4, "y", LABEL + cell * i + cell * 0.75, "text-anchor", "end", "fill", colour,
                    "font-weight", weight, "class", "row-label");
            svg.element("text", node, "transform", "translate(" + Markup.number(LABEL + cell * i + cell * 0.75) + " " + Markup.number(LABEL - 4)
                    + ") rotate(-60)", "fill", colour, "font-weight", weight, "class", "column-label");
        }
        // untested pairs are the grey ground and the diagonal white: drawing them cell by cell is N² elements, 156 million
        // for a ring of 12,500 nodes, of which the ring tests 12,500
        svg.empty("rect", "x", LABEL, "y", LABEL, "width", cell * nodes.size() - 1, "height", cell * nodes.size() - 1, "fill", "#eeeeee",
                "class", "untested");
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < nodes.size(); i++) {
            index.put(nodes.get(i), i);
            svg.empty("rect", "x", LABEL + cell * i, "y", LABEL + cell * i, "width", cell - 1, "height", cell - 1, "fill", "#ffffff");
        }
        for (Link link : links) {
            Integer row = index.get(link.client());
            Integer column = index.get(link.server());
            if (row != null && column != null) {
                cell(svg, link, LABEL + cell * column, LABEL + cell * row, cell);
            }
        }
        return svg.close("svg").toString();
    }

    private static void cell(Markup svg, Link link, double x, double y, double cell) {
        boolean failed = link.verdict() == Link.Verdict.FAILED;
        String fill = failed ? FAILED : link.percent() == null ? "#9e9e9e" : shade(link.percent());
        svg.open("g", "class", "cell", "data-client", link.client(), "data-server", link.server(), "data-hca", link.hca(),
                "data-verdict", link.verdict().toString(), "data-percent", link.percent());
        svg.element("title", link.client() + (link.hca() == null ? "" : " " + link.hca()) + " → " + link.server()
                + (link.serverHca() == null ? "" : " " + link.serverHca()) + ": " + link.verdict()
                + (link.gbps() == null ? "" : ", " + String.format("%.1f Gb/s", link.gbps()))
                + (link.percent() == null ? "" : ", " + link.percent() + "% of " + Link.plain(link.lineRateGbps()) + " Gb/s")
                + (link.reason() == null ? "" : "\n" + link.reason()));
        svg.empty("rect", "x", x, "y", y, "width", cell - 1, "height", cell - 1, "fill", fill,
                "stroke", link.verdict() == Link.Verdict.SLOW ? "#000000" : null, "stroke-width", link.verdict() == Link.Verdict.SLOW ? 2.0 : null);
        if (failed) {
            svg.empty("path", "d", "M" + Markup.number(x + 2) + " " + Markup.number(y + 2) + "L" + Markup.number(x + cell - 3) + " "
                    + Markup.number(y + cell - 3) + "M" + Markup.number(x + cell - 3) + " " + Markup.number(y + 2) + "L" + Markup.number(x + 2)
                    + " " + Markup.number(y + cell - 3), "stroke", "#ff5252", "stroke-width", 1.5);
        }
        svg.close("g");
    }

    /** Green at the line rate, through yellow, to red at half of it and below. */
    static String shade(double percent) {
        double share = Math.max(0, Math.min(1, (percent - 50) / 50));
        int hue = (int) Math.round(share * 120);
        return "hsl(" + hue + ", 70%, 45%)";
    }
}
