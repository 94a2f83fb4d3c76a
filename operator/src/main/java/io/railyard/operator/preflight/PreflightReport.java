package io.railyard.operator.preflight;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A sweep's verdict as a table for a person or JSON for a program. */
public final class PreflightReport {
    private PreflightReport() {}

    public static String text(PreflightVerdict verdict) {
        StringBuilder text = new StringBuilder();
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"CLIENT", "HCA", "SERVER", "HCA", "GB/S", "LINE", "%", "VERDICT", "REASON"});
        for (Link link : verdict.links()) {
            rows.add(new String[] {link.client(), dash(link.hca()), link.server(), dash(link.serverHca()),
                    link.gbps() == null ? "-" : String.format("%.1f", link.gbps()), link.lineRateGbps() == null ? "-" : Link.plain(link.lineRateGbps()),
                    link.percent() == null ? "-" : String.format("%.1f", link.percent()), link.verdict().toString(), dash(link.reason())});
        }
        table(text, rows);
        text.append('\n');
        List<String[]> nodes = new ArrayList<>();
        nodes.add(new String[] {"NODE", "VERDICT", "REASON"});
        verdict.nodes().forEach(node -> nodes.add(new String[] {node.node(), node.verdict(), dash(node.reason())}));
        table(text, nodes);
        text.append('\n').append(verdict.passed() ? "PASS: " : "FAIL: ").append(verdict.summary()).append('\n');
        return text.toString();
    }

    public static Map<String, Object> json(PreflightVerdict verdict) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("status", verdict.passed() ? "pass" : "fail");
        json.put("summary", verdict.summary());
        json.put("pairs", verdict.links().stream().map(link -> {
            Map<String, Object> pair = new LinkedHashMap<>();
            pair.put("server", link.server());
            pair.put("client", link.client());
            pair.put("hca", link.hca());
            pair.put("serverHca", link.serverHca());
            pair.put("gbps", link.gbps());
            pair.put("lineRateGbps", link.lineRateGbps());
            pair.put("percent", link.percent());
            pair.put("verdict", link.verdict().toString());
            pair.put("reason", link.reason());
            return pair;
        }).toList());
        json.put("nodes", verdict.nodes().stream().map(node -> {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("node", node.node());
            entry.put("verdict", node.verdict());
            entry.put("reason", node.reason());
            return entry;
        }).toList());
        return json;
    }

    /** A report that {@code -o json} wrote, as the verdict it came from; a file that is not one is a usage error. */
    public static PreflightVerdict read(Path file) {
        JsonNode json;
        try {
            json = new ObjectMapper().readTree(file.toFile());
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": " + (java.nio.file.Files.exists(file) ? "not JSON (" + e.getMessage().lines()
                    .findFirst().orElse("") + ")" : "no such file") + "; give the output of railyard preflight -o json");
        }
        if (!json.path("pairs").isArray() || !json.path("nodes").isArray() || !json.path("status").isTextual()) {
            throw new IllegalArgumentException(file + " is not a railyard preflight -o json report (no status, pairs and nodes)");
        }
        List<Link> links = new ArrayList<>();
        for (JsonNode pair : json.path("pairs")) {
            Link.Verdict verdict = switch (pair.path("verdict").asText()) {
                case "ok" -> Link.Verdict.OK;
                case "slow" -> Link.Verdict.SLOW;
                case "failed" -> Link.Verdict.FAILED;
                default -> throw new IllegalArgumentException(file + ": pair " + pair.path("client").asText() + " -> "
                        + pair.path("server").asText() + " has verdict '" + pair.path("verdict").asText() + "' (ok, slow or failed)");
            };
            links.add(new Link(text(pair, "client"), text(pair, "server"), text(pair, "hca"), text(pair, "serverHca"), number(pair, "gbps"),
                    number(pair, "lineRateGbps"), number(pair, "percent"), verdict, text(pair, "reason"), null));
        }
        List<PreflightVerdict.NodeVerdict> nodes = new ArrayList<>();
        json.path("nodes").forEach(node -> nodes.add(new PreflightVerdict.NodeVerdict(text(node, "node"), text(node, "verdict"), text(node, "reason"))));
        return new PreflightVerdict(json.path("status").asText().equals("pass"), links, nodes);
    }

    private static String text(JsonNode json, String field) {
        return json.path(field).isTextual() ? json.path(field).asText() : null;
    }

    private static Double number(JsonNode json, String field) {
        return json.path(field).isNumber() ? json.path(field).asDouble() : null;
    }

    private static String dash(String value) {
        return value == null ? "-" : value;
    }

    private static void table(StringBuilder text, List<String[]> rows) {
        int[] widths = new int[rows.getFirst().length];
        rows.forEach(row -> {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        });
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                line.append(i == row.length - 1 ? row[i] : String.format("%-" + widths[i] + "s  ", row[i]));
            }
            text.append(line.toString().stripTrailing()).append('\n');
        }
    }
}
