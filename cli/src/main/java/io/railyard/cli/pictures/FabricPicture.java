package io.railyard.cli.pictures;

import io.railyard.cli.pictures.FabricLayout.Box;
import io.railyard.cli.pictures.FabricLayout.Kind;
import io.railyard.cli.pictures.FabricLayout.Link;
import io.railyard.fabric.FabricFinding;
import io.railyard.fabric.FabricReport;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code railyard fabric -o svg|html}: the fabric as a picture a person reads in seconds. Tiers are rows, switches
 * and hosts are boxes named as the text report names them, cables are lines with their counts, and every finding is
 * drawn in its colour on its cable or box, its text on hover and in the legend. One self-contained file: no script,
 * nothing fetched.
 */
public final class FabricPicture {
    /** The colour of each finding, by id, in the legend's order. */
    static final Map<String, String> COLOURS = colours();
    private static final List<String> ORDER = List.copyOf(COLOURS.keySet());
    private static final String LINE = "#9aa5b1";
    private static final int MAX_LISTED = 40;

    private FabricPicture() {}

    private static Map<String, String> colours() {
        Map<String, String> colours = new LinkedHashMap<>();
        colours.put("port-down", "#d62728");
        colours.put("degraded-link", "#ff7f0e");
        colours.put("port-errors", "#9467bd");
        colours.put("missing-hca", "#e377c2");
        colours.put("uplink-asymmetry", "#8c564b");
        return colours;
    }

    public static String svg(FabricReport report) {
        FabricLayout layout = FabricLayout.of(report);
        List<String> legend = legendLines(report);
        double listTop = layout.height;
        double height = listTop + 24 + 16 * legend.size() + 16;
        Markup svg = new Markup();
        svg.open("svg", "xmlns", "http://www.w3.org/2000/svg", "width", layout.width, "height", height,
                "viewBox", "0 0 " + Markup.number(layout.width) + " " + Markup.number(height), "font-family", "sans-serif", "font-size", "12");
        svg.element("title", "railyard fabric: " + summary(report));
        svg.empty("rect", "width", "100%", "height", "100%", "fill", "#ffffff");
        svg.element("text", "railyard fabric: " + summary(report), "x", 16.0, "y", 24.0, "font-size", "16", "font-weight", "bold");
        key(svg, report, 16, 44);
        for (int r = 0; r < layout.rows.size(); r++) {
            svg.element("text", layout.rowNames.get(r), "x", 16.0, "y", FabricLayout.TOP + r * (FabricLayout.SWITCH_H + FabricLayout.ROW_GAP) + 22,
                    "fill", "#555", "font-weight", "bold");
        }
        for (FabricLayout.Frame frame : layout.frames) {
            svg.empty("rect", "x", frame.x(), "y", frame.y(), "width", frame.w(), "height", frame.h(), "rx", "6", "fill", "#f4f6f8",
                    "stroke", "#c9d1d9");
            svg.element("text", frame.name(), "x", frame.x() + 4, "y", frame.y() + frame.h() - 5, "font-size", "10", "fill", "#555");
        }
        layout.links.values().stream().filter(link -> link.findings.isEmpty()).forEach(link -> link(svg, link));
        layout.links.values().stream().filter(link -> !link.findings.isEmpty()).forEach(link -> link(svg, link)); // faults on top
        Map<Box, String> labels = labels(layout);
        layout.rows.forEach(row -> row.forEach(box -> box(svg, box, labels.get(box))));
        for (int i = 0; i < legend.size(); i++) {
            svg.element("text", legend.get(i), "x", 16.0, "y", listTop + 24 + 16 * i, "fill", i == 0 ? "#222" : "#333",
                    "font-weight", i == 0 ? "bold" : null);
        }
        return svg.close("svg").toString();
    }

    /** The picture in a page, with every finding in a table: severity, what, the tool's line, what to do. */
    public static String html(FabricReport report) {
        Markup body = new Markup();
        body.element("p", summary(report)).open("div", "class", "picture").raw(svg(report)).close("div");
        body.element("h2", "Findings");
        if (report.findings().isEmpty()) {
            return Markup.page("railyard fabric", body.element("p", "None: every host has its HCAs, every cable its width and speed.").toString());
        }
        body.open("table").open("tr").element("th", "").element("th", "finding").element("th", "evidence").element("th", "what to do").close("tr");
        for (FabricFinding finding : report.findings()) {
            body.open("tr", "class", "finding", "data-id", finding.id()).open("td")
                    .element("span", "", "class", "swatch", "style", "background:" + COLOURS.getOrDefault(finding.id(), "#d62728"))
                    .text(finding.severity().name()).close("td")
                    .element("td", finding.id() + ": " + finding.summary()).open("td").element("code", finding.evidence().strip()).close("td")
                    .element("td", finding.remedy()).close("tr");
        }
        return Markup.page("railyard fabric", body.close("table").toString());
    }

    static String summary(FabricReport report) {
        long errors = report.findings().stream().filter(f -> f.severity() == FabricFinding.Severity.error).count();
        return report.topology().switches().size() + " switches, " + report.topology().hosts().size() + " hosts, "
                + report.fabric().cables().size() + " links; " + (report.findings().isEmpty() ? "no findings"
                : errors + " errors, " + (report.findings().size() - errors) + " warnings");
    }

    /** One swatch per kind of finding, with how many there are. */
    private static void key(Markup svg, FabricReport report, double x, double y) {
        Map<String, Long> counts = report.findings().stream().collect(Collectors.groupingBy(FabricFinding::id, Collectors.counting()));
        double at = x;
        for (Map.Entry<String, String> colour : COLOURS.entrySet()) {
            long count = counts.getOrDefault(colour.getKey(), 0L);
            svg.empty("rect", "x", at, "y", y - 10, "width", 12.0, "height", 12.0, "fill", colour.getValue(), "class", "key");
            String label = colour.getKey() + " (" + count + ")";
            svg.element("text", label, "x", at + 16, "y", y, "fill", count == 0 ? "#999" : "#222");
            at += 30 + label.length() * 7;
        }
    }

    private static void link(Markup svg, Link link) {
        double x1 = link.a.x + link.a.w / 2;
        double y1 = link.a.y + link.a.h;
        double x2 = link.b.x + link.b.w / 2;
        double y2 = link.b.y;
        String colour = link.findings.isEmpty() ? LINE : colour(link.findings);
        double width = link.findings.isEmpty() ? Math.min(5, 1 + Math.log(link.cables) / Math.log(4)) : 3.5;
        svg.open("g", "class", "link", "data-from", link.a.name, "data-to", link.b.name, "data-cables", link.cables,
                "data-findings", ids(link.findings));
        svg.element("title", link.a.name + " ↔ " + link.b.name + ": " + link.cables + (link.cables == 1 ? " cable" : " cables")
                + findingsText(link.findings));
        svg.empty("line", "x1", x1, "y1", y1, "x2", x2, "y2", y2, "stroke", colour, "stroke-width", width,
                "stroke-dasharray", link.findings.stream().anyMatch(f -> f.id().equals("degraded-link")) ? "6 3" : null);
        if (!link.findings.isEmpty() || link.cables > 1) {
            svg.element("text", link.cables > 1 ? "×" + link.cables : "!", "x", (x1 + x2) / 2 + 3, "y", (y1 + y2) / 2, "font-size", "9",
                    "fill", link.findings.isEmpty() ? "#777" : colour);
        }
        svg.close("g");
    }

    private static void box(Markup svg, Box box, String label) {
        boolean faulty = !box.findings.isEmpty();
        String fill = box.kind == Kind.HOST || box.kind == Kind.HOSTS ? "#eef7ee" : "#e8eef7";
        String stroke = faulty ? colour(box.findings) : box.kind == Kind.HOST || box.kind == Kind.HOSTS ? "#5b8c5a" : "#4a6fa5";
        svg.open("g", "class", "box " + box.kind.name().toLowerCase(java.util.Locale.ROOT), "data-name", box.name, "data-row", box.row,
                "data-members", box.kind == Kind.SWITCH || box.kind == Kind.HOST ? null : String.join(" ", box.members),
                "data-findings", ids(box.findings), "data-faulty", box.faultyMembers.isEmpty() ? null : String.join(" ", box.faultyMembers));
        String hover = box.name + (box.guid == null ? "" : " (GUID " + box.guid + ")") + (box.members.size() > 1 ? ": " + box.members.size() + " members" : "")
                + (box.faultyMembers.isEmpty() || box.members.size() == 1 ? "" : "; faulty: " + String.join(", ", box.faultyMembers))
                + findingsText(box.findings);
        svg.element("title", hover);
        svg.empty("rect", "x", box.x, "y", box.y, "width", box.w, "height", box.h, "rx", "4", "fill", fill, "stroke", stroke,
                "stroke-width", faulty ? 3.0 : 1.2);
        double size = box.kind == Kind.HOST ? 10 : 11;
        svg.element("text", label, "x", box.x + box.w / 2, "y", box.y + (box.kind == Kind.HOST ? 17 : 15),
                "text-anchor", "middle", "font-size", Markup.number(size));
        if (box.kind == Kind.SWITCHES || box.kind == Kind.HOSTS) {
            String faultyText = box.faultyMembers.isEmpty() ? "" : "faulty: " + String.join(", ", box.faultyMembers);
            svg.element("text", fit(faultyText.isEmpty() ? "no findings" : faultyText, box.w, 9), "x", box.x + box.w / 2, "y", box.y + 32,
                    "text-anchor", "middle", "font-size", "9", "fill", faultyText.isEmpty() ? "#777" : stroke);
        }
        if (faulty) {
            svg.empty("circle", "cx", box.x + box.w - 2, "cy", box.y + 2, "r", 7.0, "fill", stroke);
            svg.element("text", String.valueOf(box.findings.size()), "x", box.x + box.w - 2, "y", box.y + 5.5, "text-anchor", "middle",
                    "font-size", "9", "fill", "#fff", "font-weight", "bold");
        }
        svg.close("g");
    }

    /** The lines under the picture: every finding, most severe first, the first {@value #MAX_LISTED} of a long list. */
    private static List<String> legendLines(FabricReport report) {
        List<String> lines = new java.util.ArrayList<>();
        lines.add(report.findings().isEmpty() ? "No findings." : "Findings (hover a red, orange or purple mark for its evidence):");
        report.findings().stream().limit(MAX_LISTED).forEach(f -> lines.add((f.severity() == FabricFinding.Severity.error ? "error " : "warning ")
                + f.id() + ": " + f.summary()));
        if (report.findings().size() > MAX_LISTED) {
            lines.add("… and " + (report.findings().size() - MAX_LISTED) + " more: railyard fabric -o text lists them all");
        }
        return lines;
    }

    /** The colour of the most severe finding: errors before warnings, then the legend's order. */
    static String colour(List<FabricFinding> findings) {
        FabricFinding first = findings.stream().min(java.util.Comparator.comparing(FabricFinding::severity)
                .thenComparing(f -> ORDER.indexOf(f.id()))).orElseThrow();
        return COLOURS.getOrDefault(first.id(), "#d62728");
    }

    private static String ids(List<FabricFinding> findings) {
        return findings.isEmpty() ? null : findings.stream().map(FabricFinding::id).distinct().collect(Collectors.joining(" "));
    }

    private static String findingsText(List<FabricFinding> findings) {
        return findings.stream().map(f -> "\n" + (f.severity() == FabricFinding.Severity.error ? "error " : "warning ") + f.id() + ": "
                + f.summary() + "\n  " + f.evidence().strip()).collect(Collectors.joining());
    }

    /**
     * Each box's name as it fits the box, cut in the middle: names made of GUIDs ({@code sw-b8cef60300a1b204}) differ at
     * their end. Boxes whose cut names would still read the same show their names whole.
     */
    private static Map<Box, String> labels(FabricLayout layout) {
        Map<Box, String> labels = new java.util.HashMap<>();
        Map<String, Long> uses = new java.util.HashMap<>();
        layout.rows.forEach(row -> row.forEach(box -> {
            String label = middleCut(box.name, room(box.w, box.kind == Kind.HOST ? 10 : 11));
            labels.put(box, label);
            uses.merge(label, 1L, Long::sum);
        }));
        labels.replaceAll((box, label) -> uses.get(label) > 1 ? box.name : label);
        return labels;
    }

    /** The characters a box of this width holds at this font size, with a margin (digits in DejaVu Sans are 0.64 em). */
    private static int room(double width, double fontSize) {
        return (int) ((width - 6) / (fontSize * 0.64));
    }

    /** A name cut to {@code room} characters: a third of them from its start, the rest from its end. */
    static String middleCut(String name, int room) {
        if (name.length() <= room) {
            return name;
        }
        int head = Math.max(1, (room - 1) / 3);
        int tail = Math.max(1, room - 1 - head);
        return name.substring(0, head) + "…" + name.substring(name.length() - tail);
    }

    /** A text cut to the box at its end, with an ellipsis: the hover text has it whole. */
    private static String fit(String text, double width, double fontSize) {
        int room = room(width, fontSize);
        return text.length() <= room ? text : text.substring(0, Math.max(1, room - 1)) + "…";
    }
}
