package io.railyard.diagnose;

import java.util.List;

/**
 * What one check found: a one-line summary, the evidence, and what to do (empty when nothing is to be done).
 */
public record CheckResult(String id, CheckStatus status, String summary, List<String> details, String remedy) {

    public CheckResult {
        details = List.copyOf(details);
    }

    public static CheckResult ok(String id, String summary, List<String> details) {
        return new CheckResult(id, CheckStatus.OK, summary, details, "");
    }

    public static CheckResult skip(String id, String why) {
        return new CheckResult(id, CheckStatus.SKIP, why, List.of(), "");
    }

    /** Skipped because the node has none of the ports the check is about: no RDMA ports at all, or none of this kind. */
    static CheckResult skipNoPorts(String id, DoctorInput input, String noneOfThisKind) {
        return skip(id, input.node().ports().isEmpty() ? "no RDMA ports" : noneOfThisKind);
    }
}
