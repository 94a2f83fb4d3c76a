package io.railyard.cli;

import io.railyard.diagnose.CheckResult;
import io.railyard.diagnose.CheckStatus;
import io.railyard.diagnose.DoctorReport;
import io.railyard.node.NodeInventory;
import java.nio.file.Path;

/** The doctor's report for people: a line per check, the evidence and the remedy where something is wrong. */
final class DoctorText {
    private DoctorText() {}

    static String render(DoctorReport report, Path root, boolean verbose) {
        NodeInventory node = report.node();
        StringBuilder text = new StringBuilder();
        text.append("railyard doctor: ").append(node.hostname().orElse("unknown host")).append(" (root ").append(root).append(")\n");
        text.append(node.hcas().size()).append(" RDMA devices, ").append(node.ports().size()).append(" ports, ")
                .append(node.gpus().size()).append(" GPUs\n\n");
        for (CheckResult check : report.checks()) {
            text.append(icon(check.status())).append(' ').append(String.format("%-18s", check.id())).append(check.summary()).append('\n');
            boolean problem = check.status() == CheckStatus.FAIL || check.status() == CheckStatus.WARN;
            if (problem || verbose) {
                check.details().forEach(line -> text.append("      ").append(line).append('\n'));
            }
            if (problem && !check.remedy().isEmpty()) {
                text.append("      -> ").append(check.remedy()).append('\n');
            }
        }
        text.append('\n').append(switch (report.status()) {
            case OK -> "OK";
            case WARN -> "OK with warnings";
            default -> "FAILED";
        }).append(": ").append(report.count(CheckStatus.OK)).append(" ok, ").append(report.count(CheckStatus.WARN))
                .append(" warn, ").append(report.count(CheckStatus.FAIL)).append(" fail, ")
                .append(report.count(CheckStatus.SKIP)).append(" skipped\n");
        return text.toString();
    }

    private static String icon(CheckStatus status) {
        return switch (status) {
            case OK -> "✅";
            case WARN -> "⚠️ ";
            case FAIL -> "❌";
            case SKIP -> "➖";
        };
    }
}
