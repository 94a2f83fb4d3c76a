package io.railyard.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.railyard.api.RunPolicy;
import io.railyard.api.TrainingJobStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** A job's restarts by cause, its limits, its history and the nodes it avoids. */
class RestartBookTest {
    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

    private static FailureBlame.Blame blame(FailureBlame.Cause cause, String reason, String node) {
        return new FailureBlame.Blame(cause, reason, node, "job-0", cause == FailureBlame.Cause.JOB ? 1 : null, "pod job-0 failed");
    }

    private static RunPolicy policy(Integer backoffLimit, Integer nodeFailureLimit, Long exclusionSeconds) {
        RunPolicy policy = new RunPolicy();
        policy.backoffLimit = backoffLimit;
        policy.nodeFailureLimit = nodeFailureLimit;
        policy.nodeExclusionSeconds = exclusionSeconds;
        return policy;
    }

    private static Node node(String name, boolean portDown) {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata().withNewStatus()
                .addNewCondition().withType("Ready").withStatus("True").endCondition()
                .addNewCondition().withType("RdmaPortDown").withStatus(portDown ? "True" : "False").endCondition().endStatus().build();
    }

    @Test
    void eachCauseCountsTowardItsOwnLimitAndPreemptionsTowardNone() {
        TrainingJobStatus status = new TrainingJobStatus();
        RunPolicy policy = policy(1, 1, null);

        assertThat(RestartBook.record(status, blame(FailureBlame.Cause.JOB, "ContainerFailed", "gpu-1"), List.of(), policy, NOW).restarts()).isTrue();
        assertThat(RestartBook.record(status, blame(FailureBlame.Cause.NODE, "RdmaPortDown", "gpu-2"), List.of("gpu-2"), policy, NOW).restarts()).isTrue();
        for (int i = 0; i < 5; i++) {
            assertThat(RestartBook.record(status, blame(FailureBlame.Cause.PREEMPTION, "Preempted", "gpu-3"), List.of(), policy, NOW).restarts()).isTrue();
        }
        RestartBook.Decision job = RestartBook.record(status, blame(FailureBlame.Cause.JOB, "ContainerFailed", "gpu-1"), List.of(), policy, NOW);
        RestartBook.Decision node = RestartBook.record(status, blame(FailureBlame.Cause.NODE, "NodeNotReady", "gpu-4"), List.of("gpu-4"), policy, NOW);

        assertThat(status.restarts).isEqualTo(7);
        assertThat(status.jobFailures).isEqualTo(1);
        assertThat(status.nodeFailures).isEqualTo(1);
        assertThat(job.terminalReason()).isEqualTo("BackoffLimitExceeded");
        assertThat(job.message()).isEqualTo("pod job-0 failed after 7 restarts (1 of them the job's own failures, backoffLimit 1)");
        assertThat(node.terminalReason()).isEqualTo("NodeFailureLimitExceeded");
        assertThat(status.excludedNodes).extracting(e -> e.node + " " + e.reason + " " + e.since).containsExactly("gpu-2 RdmaPortDown 2026-11-30T12:00:00Z");
    }

    @Test
    void theHistoryKeepsTheLastTen() {
        TrainingJobStatus status = new TrainingJobStatus();
        for (int i = 0; i < 12; i++) {
            RestartBook.record(status, blame(FailureBlame.Cause.PREEMPTION, "Preempted", "gpu-" + i), List.of(), null, NOW.plusSeconds(i));
        }

        assertThat(status.restartHistory).hasSize(10).first().satisfies(restart -> {
            assertThat(restart.node).isEqualTo("gpu-2");
            assertThat(restart.time).isEqualTo("2026-11-30T12:00:02Z");
            assertThat(restart.cause).isEqualTo("Preemption");
        });
        assertThat(status.restarts).isEqualTo(12);
    }

    @Test
    void aNodeIsLetGoWhenItsFaultClearsOrItsTimeIsUp() {
        TrainingJobStatus status = new TrainingJobStatus();
        RunPolicy policy = policy(null, null, 600L);
        RestartBook.record(status, blame(FailureBlame.Cause.NODE, "RdmaPortDown", "gpu-1"), List.of("gpu-1"), policy, NOW);
        RestartBook.record(status, blame(FailureBlame.Cause.NODE, "Evicted", "gpu-2"), List.of("gpu-2"), policy, NOW);
        RestartBook.record(status, blame(FailureBlame.Cause.NODE, "RdmaPortDown", "gpu-3"), List.of("gpu-3"), policy, NOW);
        Function<String, Optional<Node>> nodes = name -> Optional.ofNullable(Map.of("gpu-1", node("gpu-1", false), "gpu-2", node("gpu-2", false),
                "gpu-3", node("gpu-3", true)).get(name));

        assertThat(RestartBook.stillExcluded(status.excludedNodes, nodes, policy, NOW.plusSeconds(60))).extracting(e -> e.node)
                .as("gpu-1 recovered; gpu-2's eviction shows on no condition, so it waits for the time").containsExactly("gpu-2", "gpu-3");
        assertThat(RestartBook.stillExcluded(status.excludedNodes, nodes, policy, NOW.plusSeconds(600))).as("time is up for all").isNull();
        assertThat(RestartBook.stillExcluded(status.excludedNodes, name -> Optional.empty(), policy, NOW.plusSeconds(60)))
                .as("a node gone from the cluster stays excluded until its time").hasSize(3);
    }

    @Test
    void noExclusionWhenTheJobAsksForNone() {
        TrainingJobStatus status = new TrainingJobStatus();

        RestartBook.record(status, blame(FailureBlame.Cause.NODE, "RdmaPortDown", "gpu-1"), List.of("gpu-1"), policy(null, null, 0L), NOW);

        assertThat(status.nodeFailures).isEqualTo(1);
        assertThat(status.excludedNodes).isNull();
    }
}
