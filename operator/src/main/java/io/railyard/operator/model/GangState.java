package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the pods of a gang show: how many exist, are placed, run and finished, and what broke. A lost member breaks
 * every NCCL communicator, so one failure means the whole gang restarts.
 *
 * @param failure why the gang must restart: the failed pod, its container and exit code, or a missing or lost pod
 */
public record GangState(int expected, int created, int scheduled, int running, int succeeded, Optional<String> failure) {

    public static GangState observe(int expected, String job, List<Pod> pods) {
        Map<String, Pod> byName = new TreeMap<>();
        pods.forEach(pod -> byName.put(pod.getMetadata().getName(), pod));
        int scheduled = 0;
        int running = 0;
        int succeeded = 0;
        List<String> failures = new ArrayList<>();
        for (Pod pod : byName.values()) {
            String phase = pod.getStatus() == null ? "Pending" : String.valueOf(pod.getStatus().getPhase());
            if (pod.getSpec() != null && pod.getSpec().getNodeName() != null) {
                scheduled++;
            }
            switch (phase) {
                case "Running" -> running++;
                case "Succeeded" -> succeeded++;
                case "Failed" -> failures.add(failed(pod));
                case "Unknown" -> failures.add("pod " + pod.getMetadata().getName() + " lost contact with its node "
                        + pod.getSpec().getNodeName());
                default -> { }
            }
        }
        if (!byName.isEmpty() && byName.size() < expected && failures.isEmpty()) {
            for (int index = 0; index < expected; index++) {
                if (!byName.containsKey(job + "-" + index)) {
                    failures.add("pod " + job + "-" + index + " was deleted");
                    break;
                }
            }
        }
        return new GangState(expected, byName.size(), scheduled, running, succeeded, failures.stream().findFirst());
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
