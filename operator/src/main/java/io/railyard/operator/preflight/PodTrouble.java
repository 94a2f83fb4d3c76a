package io.railyard.operator.preflight;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Why a pod will not run as asked, in the API's own words: unschedulable, an image it cannot pull, a failed container. */
public final class PodTrouble {
    private static final Set<String> STUCK = Set.of("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CreateContainerConfigError",
            "CreateContainerError", "RunContainerError");

    private PodTrouble() {}

    /** Empty while the pod is on its way (or done well). */
    public static Optional<String> of(Pod pod) {
        if (pod.getStatus() == null) {
            return Optional.empty();
        }
        for (PodCondition condition : nonNull(pod.getStatus().getConditions())) {
            if ("PodScheduled".equals(condition.getType()) && "False".equals(condition.getStatus()) && "Unschedulable".equals(condition.getReason())) {
                return Optional.of("unschedulable: " + condition.getMessage());
            }
        }
        for (ContainerStatus status : nonNull(pod.getStatus().getContainerStatuses())) {
            var waiting = status.getState() == null ? null : status.getState().getWaiting();
            if (waiting != null && STUCK.contains(waiting.getReason())) {
                return Optional.of(waiting.getReason() + (waiting.getMessage() == null ? "" : ": " + waiting.getMessage()));
            }
        }
        if ("Failed".equals(pod.getStatus().getPhase()) && pod.getStatus().getReason() != null) {
            return Optional.of(pod.getStatus().getReason() + (pod.getStatus().getMessage() == null ? "" : ": " + pod.getStatus().getMessage()));
        }
        return Optional.empty();
    }

    public static boolean finished(Pod pod) {
        return pod.getStatus() != null && ("Succeeded".equals(pod.getStatus().getPhase()) || "Failed".equals(pod.getStatus().getPhase()));
    }

    private static <T> List<T> nonNull(List<T> list) {
        return list == null ? List.of() : list;
    }
}
