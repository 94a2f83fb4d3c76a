package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import io.railyard.operator.model.GangState;
import io.railyard.operator.model.TrainerRestarts;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A gang restarted where it stands: each pod on a healthy node is moved to the new attempt with one patch (its sidecar
 * then restarts it in place), and only a pod that cannot run again where it is (on a blamed node, failed, lost or being
 * deleted) is deleted, to be created again by the next reconcile like any missing pod.
 */
final class InPlaceRestart {

    /** @param inPlace the pods moved to the new attempt, rank 0 first; @param replaced the pods deleted */
    record Plan(List<Pod> inPlace, List<Pod> replaced) {
        String describe(int nodes, int promoted) {
            return inPlace.size() + " of " + nodes + " pods restart in place, " + (promoted > 0 ? promoted + " spares promoted, " : "")
                    + (nodes - inPlace.size() - promoted) + " created again";
        }
    }

    private InPlaceRestart() {}

    /** Which pods restart in place and which are replaced, the nodes in {@code excluded} being blamed. */
    static Plan plan(List<Pod> pods, Set<String> excluded) {
        Map<Boolean, List<Pod>> split = pods.stream().filter(pod -> pod.getMetadata().getDeletionTimestamp() == null)
                .sorted(Comparator.comparingInt(InPlaceRestart::index))
                .collect(Collectors.partitioningBy(pod -> restartable(pod, excluded)));
        return new Plan(split.get(true), split.get(false));
    }

    /**
     * Sends the plan: a delete per pod replaced, first (its name is free sooner for its replacement, which the next
     * reconcile creates), then a patch per pod kept (rank 0's first: its old rendezvous goes first).
     */
    static void apply(KubernetesClient client, TrainingJob job, Plan plan, int attempt) {
        GangPods.deleteExactly(client, plan.replaced());
        GangPods.moveToAttempt(client, job.getMetadata().getNamespace(), plan.inPlace(), String.valueOf(attempt));
    }

    /**
     * The seconds from the last restart until every rank of its run was running, once the gang runs: the latest of the
     * trainers' own start times where the kubelet gives them, else now.
     */
    static Optional<Long> recovery(TrainingJobStatus status, List<Pod> pods, Instant now) {
        if (status.restartHistory == null || status.restartHistory.isEmpty() || status.restartHistory.getLast().recoverySeconds != null
                || status.restartHistory.getLast().strategy == null) {
            return Optional.empty();
        }
        Instant restarted = Instant.parse(status.restartHistory.getLast().time);
        List<Optional<String>> starts = pods.stream().map(TrainerRestarts::startedAt).toList();
        Instant running = starts.stream().allMatch(Optional::isPresent)
                ? starts.stream().map(start -> Instant.parse(start.get())).max(Instant::compareTo).orElse(now) : now;
        return Optional.of(Math.max(0, Duration.between(restarted, running).toSeconds()));
    }

    /** A pod being evicted or preempted (Kueue takes a whole gang's) is replaced: the scheduler is taking it away. */
    private static boolean restartable(Pod pod, Set<String> excluded) {
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return node != null && !excluded.contains(node) && !"Failed".equals(phase) && !"Unknown".equals(phase) && !"Succeeded".equals(phase)
                && GangState.disruption(pod).isEmpty();
    }

    private static int index(Pod pod) {
        String index = pod.getMetadata().getLabels() == null ? null : pod.getMetadata().getLabels().get(Names.INDEX_LABEL);
        return index == null ? Integer.MAX_VALUE : Integer.parseInt(index);
    }
}
