package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.Node;
import io.railyard.api.RunPolicy;
import io.railyard.api.TrainingJobStatus;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * A job's restarts by cause, kept in its status so that an operator that restarts loses none: the job's own failures
 * against backoffLimit, node faults against nodeFailureLimit, preemptions against neither; the last restarts; and the
 * nodes the next pods avoid.
 */
public final class RestartBook {
    public static final int DEFAULT_BACKOFF_LIMIT = 3;
    public static final int DEFAULT_NODE_FAILURE_LIMIT = 10;
    public static final long DEFAULT_EXCLUSION_SECONDS = 3600;
    static final int HISTORY = 10;

    /** @param terminalReason null when the gang restarts, else BackoffLimitExceeded or NodeFailureLimitExceeded */
    public record Decision(String terminalReason, String message) {
        public boolean restarts() {
            return terminalReason == null;
        }
    }

    private RestartBook() {}

    /**
     * Writes the failure into the status: counters, history and the excluded nodes; the restart count only when the
     * gang restarts.
     *
     * @param exclude the nodes to keep the next pods off (the blamed node, or the preflight gate's suspects)
     */
    public static Decision record(TrainingJobStatus status, FailureBlame.Blame blame, List<String> exclude, RunPolicy policy, Instant now) {
        String time = now.truncatedTo(ChronoUnit.SECONDS).toString();
        int restarts = value(status.restarts);
        Decision decision = switch (blame.cause()) {
            case JOB -> value(status.jobFailures) < backoffLimit(policy) ? new Decision(null, null)
                    : new Decision("BackoffLimitExceeded", blame.message() + " after " + restarts + " restarts (" + value(status.jobFailures)
                            + " of them the job's own failures, backoffLimit " + backoffLimit(policy) + ")");
            case NODE -> value(status.nodeFailures) < nodeFailureLimit(policy) ? new Decision(null, null)
                    : new Decision("NodeFailureLimitExceeded", blame.message() + " after " + restarts + " restarts (" + value(status.nodeFailures)
                            + " of them for node faults, nodeFailureLimit " + nodeFailureLimit(policy) + ")");
            case PREEMPTION -> new Decision(null, null);
        };
        if (!decision.restarts()) {
            return decision;
        }
        status.restarts = restarts + 1;
        switch (blame.cause()) {
            case JOB -> status.jobFailures = value(status.jobFailures) + 1;
            case NODE -> status.nodeFailures = value(status.nodeFailures) + 1;
            case PREEMPTION -> { }
        }
        List<TrainingJobStatus.Restart> history = new ArrayList<>(status.restartHistory == null ? List.of() : status.restartHistory);
        history.add(entry(blame, time));
        status.restartHistory = List.copyOf(history.subList(Math.max(0, history.size() - HISTORY), history.size()));
        if (blame.cause() == FailureBlame.Cause.NODE && exclusionSeconds(policy) > 0) {
            List<TrainingJobStatus.ExcludedNode> excluded = new ArrayList<>(status.excludedNodes == null ? List.of() : status.excludedNodes);
            for (String node : exclude) {
                excluded.removeIf(e -> e.node.equals(node));
                TrainingJobStatus.ExcludedNode entry = new TrainingJobStatus.ExcludedNode();
                entry.node = node;
                entry.reason = blame.reason();
                entry.since = time;
                excluded.add(entry);
            }
            status.excludedNodes = excluded.isEmpty() ? null : excluded;
        }
        return decision;
    }

    /**
     * The exclusions still in force: a node leaves when it no longer shows the fault it was excluded for (faults the
     * node does not show, such as an eviction or a log's verdict, wait for the time), or when the time is up.
     */
    public static List<TrainingJobStatus.ExcludedNode> stillExcluded(List<TrainingJobStatus.ExcludedNode> excluded,
            Function<String, Optional<Node>> nodes, RunPolicy policy, Instant now) {
        if (excluded == null || excluded.isEmpty()) {
            return null;
        }
        long seconds = exclusionSeconds(policy);
        List<TrainingJobStatus.ExcludedNode> kept = excluded.stream().filter(entry -> {
            Instant since = NodeFaults.instant(entry.since);
            if (since == null || !now.isBefore(since.plusSeconds(seconds))) {
                return false;
            }
            Optional<Node> node = nodes.apply(entry.node);
            return !(NodeFaults.visible(entry.reason) && node.isPresent() && NodeFaults.of(node.get()).isEmpty());
        }).toList();
        return kept.isEmpty() ? null : kept;
    }

    /** When the first of these exclusions runs out of time; none when nothing is excluded. */
    public static Optional<Instant> nextRelease(List<TrainingJobStatus.ExcludedNode> excluded, RunPolicy policy) {
        return excluded == null ? Optional.empty() : excluded.stream().map(entry -> NodeFaults.instant(entry.since)).filter(since -> since != null)
                .map(since -> since.plusSeconds(exclusionSeconds(policy))).min(Instant::compareTo);
    }

    public static int backoffLimit(RunPolicy policy) {
        return policy == null || policy.backoffLimit == null ? DEFAULT_BACKOFF_LIMIT : policy.backoffLimit;
    }

    static int nodeFailureLimit(RunPolicy policy) {
        return policy == null || policy.nodeFailureLimit == null ? DEFAULT_NODE_FAILURE_LIMIT : policy.nodeFailureLimit;
    }

    static long exclusionSeconds(RunPolicy policy) {
        return policy == null || policy.nodeExclusionSeconds == null ? DEFAULT_EXCLUSION_SECONDS : policy.nodeExclusionSeconds;
    }

    private static TrainingJobStatus.Restart entry(FailureBlame.Blame blame, String time) {
        TrainingJobStatus.Restart restart = new TrainingJobStatus.Restart();
        restart.time = time;
        restart.cause = switch (blame.cause()) {
            case JOB -> "Job";
            case NODE -> "Node";
            case PREEMPTION -> "Preemption";
        };
        restart.reason = blame.reason();
        restart.node = blame.node();
        restart.pod = blame.pod();
        restart.exitCode = blame.exitCode();
        restart.message = blame.message();
        return restart;
    }

    private static int value(Integer count) {
        return count == null ? 0 : count;
    }
}
