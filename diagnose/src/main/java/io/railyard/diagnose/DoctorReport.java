package io.railyard.diagnose;

import io.railyard.node.NodeInventory;
import java.util.List;

/** The result of every check, the overall status, and the snapshot they looked at. */
public record DoctorReport(CheckStatus status, List<CheckResult> checks, NodeInventory node) {

    public DoctorReport {
        checks = List.copyOf(checks);
    }

    public long count(CheckStatus wanted) {
        return checks.stream().filter(check -> check.status() == wanted).count();
    }
}
