package io.railyard.cli;

import io.railyard.operator.preflight.Link;
import io.railyard.operator.preflight.PreflightVerdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A sweep's verdict as a table for a person or JSON for a program. */
final class PreflightReport {
    private PreflightReport() {}

    static String text(PreflightVerdict verdict) {
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

    static Map<String, Object> json(PreflightVerdict verdict) {
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
