package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.railyard.api.RunPolicy;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import io.railyard.operator.model.HangWatch;
import io.railyard.operator.model.InspectorSidecar;
import io.railyard.operator.model.NodeFaults;
import io.railyard.operator.model.RestartBook;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * When a job must be reconciled again though nothing in the cluster changes: the earliest of the deadlines it keeps.
 * A member's node NotReady longer than the pod tolerates, a tolerated NoExecute taint running out, an excluded node's
 * time ending, the admission back-off, the preflight gate's wait, the active deadline, a finished job's time to live,
 * the next reads of the nccl-watch verdict and the nccl-speed line, and rank 0's log while RDMA is unverified.
 */
final class JobDeadlines {
    /** How often rank 0's log is read until it says whether NCCL uses RDMA. */
    static final Duration RDMA_LOG_POLL = Duration.ofSeconds(10);

    /** What the reconciler itself remembers of a job's times; each null when there is none. */
    record Kept(Instant lastWatched, Instant podsExpected, Instant preflightDecides, Instant lastSpeedRead) {}

    private JobDeadlines() {}

    static Optional<Instant> next(TrainingJob job, List<Pod> pods, Function<String, Optional<Node>> nodes, Kept kept, Instant now) {
        TrainingJobStatus status = job.getStatus() == null ? new TrainingJobStatus() : job.getStatus();
        RunPolicy policy = job.getSpec() == null ? null : job.getSpec().runPolicy;
        List<Instant> due = new ArrayList<>();
        if ("Succeeded".equals(status.phase) || "Failed".equals(status.phase)) {
            if (policy != null && policy.ttlSecondsAfterFinished != null && status.completionTime != null) {
                due.add(Instant.parse(status.completionTime).plusSeconds(policy.ttlSecondsAfterFinished).plusMillis(1));
            }
            return earliest(due);
        }
        if (job.getSpec() == null) {
            return Optional.empty();
        }
        if (policy != null && policy.activeDeadlineSeconds != null && status.startTime != null) {
            due.add(Instant.parse(status.startTime).plusSeconds(policy.activeDeadlineSeconds).plusMillis(1));
        }
        RestartBook.nextRelease(status.excludedNodes, policy).ifPresent(due::add);
        Admission.nextTry(status).ifPresent(due::add);
        Optional.ofNullable(kept.podsExpected()).ifPresent(due::add);
        Optional.ofNullable(kept.preflightDecides()).ifPresent(due::add);
        for (Pod pod : pods) {
            String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
            if (node != null && pod.getMetadata().getDeletionTimestamp() == null) {
                nodes.apply(node).flatMap(n -> NodeFaults.dueWhileRunning(n, pod)).ifPresent(due::add);
            }
        }
        if ("Running".equals(status.phase)) {
            if (HangWatch.enabled(job.getSpec())) {
                due.add(kept.lastWatched() == null ? now : kept.lastWatched().plusSeconds(HangWatch.intervalSeconds(job.getSpec())));
            }
            if (InspectorSidecar.enabled(job.getSpec())) {
                due.add(kept.lastSpeedRead() == null ? now : kept.lastSpeedRead().plusSeconds(InspectorSidecar.intervalSeconds(job.getSpec())));
            }
            if (status.rdma == null || status.rdma.verified == null) {
                due.add(now.plus(RDMA_LOG_POLL));
            }
        }
        return earliest(due);
    }

    private static Optional<Instant> earliest(List<Instant> due) {
        return due.stream().min(Instant::compareTo);
    }
}
