package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the pods of a gang show: how many exist, are placed, run and finished, and what broke. A lost member breaks
 * every NCCL communicator, so one failure means the whole gang restarts.
 *
 * @param failure why the gang must restart: the failed pod, its container and exit code, or a missing or lost pod
 * @param failed every pod that failed, was lost, or is being evicted or deleted, for blame
 */
public record GangState(int expected, int created, int scheduled, int running, int succeeded, Optional<Failure> failure, List<Pod> failed) {

    /** @param pod the first broken pod's name; @param object that pod, null when it was deleted */
    public record Failure(String pod, String message, Pod object) {}

    /**
     * @param pods the current run's pods (older runs' are being deleted)
     * @param deleted the run's pods that existed and are gone (a pod not created yet is not one)
     */
    public static GangState observe(int expected, String job, List<Pod> pods, Set<String> deleted) {
        Map<String, Pod> byName = new TreeMap<>();
        pods.forEach(pod -> byName.put(pod.getMetadata().getName(), pod));
        int scheduled = 0;
        int running = 0;
        int succeeded = 0;
        List<Failure> failures = new ArrayList<>();
        for (Pod pod : byName.values()) {
            String phase = pod.getStatus() == null ? "Pending" : String.valueOf(pod.getStatus().getPhase());
            if (pod.getSpec() != null && pod.getSpec().getNodeName() != null) {
                scheduled++;
            }
            String name = pod.getMetadata().getName();
            Optional<String> disruption = disruption(pod);
            Optional<io.fabric8.kubernetes.api.model.ContainerStateTerminated> ownFailure = TrainerRestarts.ownFailure(pod);
            if (phase.equals("Failed")) {
                failures.add(new Failure(name, failed(pod), pod));
            } else if (phase.equals("Unknown")) {
                failures.add(new Failure(name, "pod " + name + " lost contact with its node " + pod.getSpec().getNodeName(), pod));
            } else if (disruption.isPresent()) {
                failures.add(new Failure(name, "pod " + name + " is being evicted (" + disruption.get() + ")", pod));
            } else if (pod.getMetadata().getDeletionTimestamp() != null) {
                failures.add(new Failure(name, "pod " + name + " is being deleted", pod));
            } else if (ownFailure.isPresent()) {
                var end = ownFailure.get();
                failures.add(new Failure(name, "pod " + name + " container " + PodModel.TRAINER + " exited with code " + end.getExitCode()
                        + (end.getReason() == null ? "" : " (" + end.getReason() + ")") + " and restarted the pod in place", pod));
            } else if (phase.equals("Running") && TrainerRestarts.running(pod)) {
                running++;
            } else if (phase.equals("Succeeded")) {
                succeeded++;
            }
        }
        if (failures.isEmpty()) {
            deleted.stream().sorted().findFirst().ifPresent(pod -> failures.add(new Failure(pod, "pod " + pod + " was deleted", null)));
        }
        return new GangState(expected, byName.size(), scheduled, running, succeeded, failures.stream().findFirst(),
                failures.stream().map(Failure::object).filter(Objects::nonNull).toList());
    }

    /** The reason Kueue gives on the pods of a workload it evicts: WorkloadEvictedDueToPreempted, ...DueToPodsReadyTimeout. */
    static final String KUEUE_EVICTION = "WorkloadEvicted";

    /**
     * The condition set before a pod is evicted or preempted, its reason and message: Kubernetes' DisruptionTarget, or
     * Kueue's TerminationTarget on the pods of a workload it evicts.
     */
    public static Optional<String> disruption(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return pod.getStatus().getConditions().stream().filter(c -> ("DisruptionTarget".equals(c.getType())
                        || "TerminationTarget".equals(c.getType()) && c.getReason() != null && c.getReason().startsWith(KUEUE_EVICTION))
                        && "True".equals(c.getStatus()))
                .findFirst().map(c -> c.getReason() + (c.getMessage() == null ? "" : ": " + c.getMessage()));
    }

    /** Pending (pods not yet created), Scheduling, Running, Succeeded; a failure is for the caller to act on. */
    public String phase() {
        if (succeeded == expected) {
            return "Succeeded";
        }
        if (created < expected || scheduled < expected) {
            return created == 0 ? "Pending" : "Scheduling";
        }
        return running + succeeded == expected ? "Running" : "Scheduling";
    }

    private static String failed(Pod pod) {
        String name = pod.getMetadata().getName();
        List<ContainerStatus> statuses = pod.getStatus().getContainerStatuses() == null ? List.of() : pod.getStatus().getContainerStatuses();
        for (ContainerStatus status : statuses) {
            if (status.getState() != null && status.getState().getTerminated() != null && status.getState().getTerminated().getExitCode() != 0) {
                var terminated = status.getState().getTerminated();
                return "pod " + name + " container " + status.getName() + " exited with code " + terminated.getExitCode()
                        + (terminated.getReason() == null ? "" : " (" + terminated.getReason() + ")");
            }
        }
        String reason = pod.getStatus().getReason();
        return "pod " + name + " failed" + (reason == null ? "" : " (" + reason + ")");
    }
}
