package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Whose fault a gang's failure is. A node's, when a failed pod's node (then any member's) shows a fault, when a pod
 * was lost with its node or evicted for the node's sake, or when rank 0's NCCL log names the node; nobody's when a pod
 * was preempted; otherwise the job's own code. Node faults and preemptions do not use up the job's backoffLimit.
 */
public final class FailureBlame {
    /** The limit a restart counts toward: backoffLimit, nodeFailureLimit, or neither. */
    public enum Cause { JOB, NODE, PREEMPTION }

    /**
     * @param reason ContainerFailed, PodFailed, PodDeleted; the node's fault; Evicted, NodeLost, NodeShutdown; Preempted
     * @param node the node blamed (excluded from the next run when the cause is NODE), else the failed pod's node
     */
    public record Blame(Cause cause, String reason, String node, String pod, Integer exitCode, String message) {}

    private FailureBlame() {}

    /**
     * @param members the current run's pods
     * @param nodes a node by name, from the operator's cache
     * @param rankZeroLog rank 0's log, read only when nothing else blames a node
     */
    public static Blame of(GangState.Failure failure, List<Pod> failed, List<Pod> members, Function<String, Optional<Node>> nodes,
            Supplier<Optional<String>> rankZeroLog) {
        Pod first = failure.object();
        Integer exit = first == null ? null : exitCode(first);
        String firstNode = first == null || first.getSpec() == null ? null : first.getSpec().getNodeName();
        for (Pod pod : failed) {
            Optional<NodeFaults.Fault> fault = fault(pod, nodes);
            if (fault.isPresent()) {
                return node(failure, exit, fault.get().node(), fault.get().reason(), fault.get().message());
            }
        }
        for (Pod pod : failed) {
            Optional<Blame> disrupted = disrupted(failure, pod, exit);
            if (disrupted.isPresent()) {
                return disrupted.get();
            }
        }
        List<Pod> others = new ArrayList<>(members);
        others.removeAll(failed);
        for (Pod pod : others) {
            Optional<NodeFaults.Fault> fault = fault(pod, nodes);
            if (fault.isPresent()) {
                return node(failure, exit, fault.get().node(), fault.get().reason(), fault.get().message());
            }
        }
        Optional<NcclLogBlame.Verdict> logged = rankZeroLog.get().flatMap(log -> NcclLogBlame.of(log, members, FailureBlame::crashed));
        if (logged.isPresent()) {
            return node(failure, exit, logged.get().node(), logged.get().reason(), "rank 0's NCCL log blames node " + logged.get().node()
                    + ": " + logged.get().line());
        }
        String reason = first == null ? "PodDeleted" : exit != null ? "ContainerFailed" : "PodFailed";
        return new Blame(Cause.JOB, reason, firstNode, failure.pod(), exit, failure.message());
    }

    /**
     * A member's node that turned bad while the gang runs: restart now rather than when NCCL's watchdog gives up. Pods
     * that finished, or have no node yet, are left out.
     */
    public static Optional<Blame> whileRunning(List<Pod> members, Function<String, Optional<Node>> nodes, Instant now) {
        for (Pod pod : members) {
            String phase = pod.getStatus() == null ? "Pending" : String.valueOf(pod.getStatus().getPhase());
            String name = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
            if (name == null || phase.equals("Succeeded") || phase.equals("Failed")) {
                continue;
            }
            Optional<NodeFaults.Fault> fault = nodes.apply(name).flatMap(node -> NodeFaults.whileRunning(node, pod, now));
            if (fault.isPresent()) {
                return Optional.of(new Blame(Cause.NODE, fault.get().reason(), name, pod.getMetadata().getName(), null,
                        fault.get().message() + " under pod " + pod.getMetadata().getName()));
            }
        }
        return Optional.empty();
    }

    private static Optional<NodeFaults.Fault> fault(Pod pod, Function<String, Optional<Node>> nodes) {
        String name = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        return name == null ? Optional.empty() : nodes.apply(name).flatMap(NodeFaults::of);
    }

    /** A gang its queue took away (Kueue's eviction: a preemption, its quota or queue stopped), in the queue's words. */
    public static Blame evicted(GangState.Failure failure, String words) {
        Integer exit = failure.object() == null ? null : exitCode(failure.object());
        String node = failure.object() == null || failure.object().getSpec() == null ? null : failure.object().getSpec().getNodeName();
        return new Blame(Cause.PREEMPTION, "Preempted", node, failure.pod(), exit, failure.message() + "; " + words);
    }

    /** Evictions and preemptions, by the DisruptionTarget reason Kubernetes gives, or the kubelet's pod reason. */
    private static Optional<Blame> disrupted(GangState.Failure failure, Pod pod, Integer exit) {
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        String disruption = GangState.disruption(pod).map(d -> d.split(":", 2)[0]).orElse("");
        String reason = pod.getStatus() == null || pod.getStatus().getReason() == null ? "" : pod.getStatus().getReason();
        String phase = pod.getStatus() == null ? "" : String.valueOf(pod.getStatus().getPhase());
        String message = failure.message() + (failure.pod().equals(pod.getMetadata().getName()) ? "" : "; pod " + pod.getMetadata().getName()
                + " " + (disruption.isEmpty() ? reason : disruption));
        // the scheduler's preemption, the Eviction API (a drain, a queue preempting for a higher priority), Kueue's eviction
        if (disruption.equals("PreemptionByScheduler") || disruption.equals("EvictionByEvictionAPI") || reason.equals("Preempting")
                || disruption.startsWith(GangState.KUEUE_EVICTION)) {
            String why = GangState.disruption(pod).orElse(reason); // the preemptor's words: who took the place, and why
            return Optional.of(new Blame(Cause.PREEMPTION, "Preempted", node, failure.pod(), exit,
                    message.contains(why) ? message : message + " (" + why + ")"));
        }
        // the taint manager (NoExecute), the kubelet's node-pressure eviction, the pod GC of a deleted node
        if (disruption.equals("DeletionByTaintManager") || disruption.equals("TerminationByKubelet") || disruption.equals("DeletionByPodGC")
                || reason.equals("Evicted")) {
            return Optional.of(node(failure, exit, node, "Evicted", message));
        }
        if (reason.equals("Terminated") || reason.equals("Shutdown") || reason.equals("NodeShutdown")) { // graceful node shutdown
            return Optional.of(node(failure, exit, node, "NodeShutdown", message));
        }
        if (phase.equals("Unknown") || reason.equals("NodeLost")) {
            return Optional.of(node(failure, exit, node, "NodeLost", message));
        }
        return Optional.empty();
    }

    private static Blame node(GangState.Failure failure, Integer exit, String node, String reason, String message) {
        String text = message.startsWith(failure.message()) ? message : failure.message() + "; " + message;
        return new Blame(Cause.NODE, reason, node, failure.pod(), exit, text);
    }

    /** The first non-zero exit code of the pod's containers. */
    static Integer exitCode(Pod pod) {
        List<ContainerStatus> statuses = pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null
                ? List.of() : pod.getStatus().getContainerStatuses();
        return statuses.stream().filter(s -> s.getState() != null && s.getState().getTerminated() != null
                && s.getState().getTerminated().getExitCode() != null && s.getState().getTerminated().getExitCode() != 0)
                .map(s -> s.getState().getTerminated().getExitCode()).findFirst()
                .or(() -> TrainerRestarts.ownFailure(pod).map(end -> end.getExitCode())).orElse(null);
    }

    private static boolean crashed(Pod pod) {
        return exitCode(pod) != null;
    }
}
