package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.railyard.api.Names;
import java.util.Optional;

/**
 * The trainer container of a pod that restarts in place, as the kubelet shows it: each in-place restart raises every
 * container's restart count and keeps the last run's end in {@code lastState}. The operator writes the count the trainer
 * will have once it runs the pod's attempt ({@link Names#RESTART_BASE_ANNOTATION}); a higher count is the trainer's own
 * failure, the old run's end is not.
 */
public final class TrainerRestarts {
    private TrainerRestarts() {}

    /** The trainer's end that restarted the pod during its attempt, when it failed on its own. */
    public static Optional<ContainerStateTerminated> ownFailure(Pod pod) {
        Optional<ContainerStatus> trainer = trainer(pod);
        if (trainer.isEmpty() || trainer.get().getRestartCount() == null || trainer.get().getRestartCount() <= base(pod)) {
            return Optional.empty();
        }
        ContainerStatus status = trainer.get();
        return Optional.ofNullable(status.getLastState() == null ? null : status.getLastState().getTerminated())
                .filter(end -> end.getExitCode() != null && end.getExitCode() != 0);
    }

    /**
     * The count to write when the operator moves this pod to a new attempt: one more when the kubelet shows the trainer
     * running (its restart-watch will restart the pod); the same when it has not started or waits in await-rank.
     */
    public static int nextBase(Pod pod) {
        Optional<ContainerStatus> trainer = trainer(pod);
        int count = trainer.map(ContainerStatus::getRestartCount).orElse(0);
        boolean runs = trainer.map(status -> status.getState() != null && status.getState().getRunning() != null).orElse(false);
        return runs ? count + 1 : count;
    }

    /** Whether the trainer runs: no status yet (a pod just placed) counts as running, a trainer waiting or ended does not. */
    public static boolean running(Pod pod) {
        return trainer(pod).map(status -> status.getState() == null || status.getState().getRunning() != null).orElse(true);
    }

    /** When the trainer started its current run, when the kubelet says. */
    public static Optional<String> startedAt(Pod pod) {
        return trainer(pod).filter(status -> status.getState() != null && status.getState().getRunning() != null)
                .map(status -> status.getState().getRunning().getStartedAt());
    }

    static int base(Pod pod) {
        String value = pod.getMetadata().getAnnotations() == null ? null : pod.getMetadata().getAnnotations().get(Names.RESTART_BASE_ANNOTATION);
        try {
            return value == null ? 0 : Integer.parseInt(value);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static Optional<ContainerStatus> trainer(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null ? Optional.empty()
                : pod.getStatus().getContainerStatuses().stream().filter(s -> PodModel.TRAINER.equals(s.getName())).findFirst();
    }
}
