package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.railyard.api.Names;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What a node shows that makes it a job's problem: NotReady, an {@code Rdma*} condition True (the agent's node health),
 * Railyard's taints, the preflight gate's mark. Read from the node as the operator's informer holds it.
 */
public final class NodeFaults {
    public static final String NOT_READY = "NodeNotReady";
    public static final String RDMA_TAINTED = "RdmaUnhealthyTaint";
    public static final String PREFLIGHT_FAILED = "PreflightFailed";
    public static final String NO_EXECUTE = "NoExecuteTaint";
    /** The node lifecycle controller's taints for NotReady and unreachable nodes, which pods tolerate for a while. */
    private static final Set<String> LIFECYCLE_TAINTS = Set.of("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable");
    /** What the DefaultTolerationSeconds admission plugin gives a pod that names no toleration for them. */
    private static final long DEFAULT_TOLERATION_SECONDS = 300;

    /** @param reason NodeNotReady, the Rdma* condition's type, RdmaUnhealthyTaint, PreflightFailed or NoExecuteTaint */
    public record Fault(String node, String reason, String message) {}

    private NodeFaults() {}

    /** The node's fault, if it shows one: for blaming a failed gang, and for letting an excluded node go again. */
    public static Optional<Fault> of(Node node) {
        String name = node.getMetadata().getName();
        for (NodeCondition condition : conditions(node)) {
            if (condition.getType().equals("Ready") && !"True".equals(condition.getStatus())) {
                return Optional.of(new Fault(name, NOT_READY, "node " + name + " is NotReady (" + text(condition) + ")"));
            }
        }
        Optional<Fault> rdma = rdmaCondition(node);
        if (rdma.isPresent()) {
            return rdma;
        }
        for (Taint taint : taints(node)) {
            if (Names.RDMA_UNHEALTHY_TAINT.equals(taint.getKey())) {
                return Optional.of(new Fault(name, RDMA_TAINTED, "node " + name + " is tainted " + taint.getKey() + ":" + taint.getEffect()));
            }
            if (Names.PREFLIGHT_TAINT.equals(taint.getKey())) {
                return Optional.of(new Fault(name, PREFLIGHT_FAILED, "node " + name + " is tainted " + taint.getKey() + ":" + taint.getEffect()));
            }
        }
        String preflight = node.getMetadata().getLabels() == null ? null : node.getMetadata().getLabels().get(Names.PREFLIGHT_LABEL);
        if ("failed".equals(preflight)) {
            return Optional.of(new Fault(name, PREFLIGHT_FAILED, "node " + name + " is labelled " + Names.PREFLIGHT_LABEL + "=failed"));
        }
        return Optional.empty();
    }

    /**
     * Why a running member's node should restart the gang now rather than when NCCL's watchdog gives up: an Rdma*
     * condition True, a NoExecute taint the pod does not tolerate, or NotReady for longer than the pod tolerates it.
     */
    public static Optional<Fault> whileRunning(Node node, Pod pod, Instant now) {
        Optional<Fault> rdma = rdmaCondition(node);
        if (rdma.isPresent()) {
            return rdma;
        }
        String name = node.getMetadata().getName();
        for (Taint taint : taints(node)) {
            if ("NoExecute".equals(taint.getEffect()) && !LIFECYCLE_TAINTS.contains(taint.getKey()) && !tolerates(pod, taint, now)) {
                return Optional.of(new Fault(name, NO_EXECUTE, "node " + name + " is tainted " + taint.getKey() + ":NoExecute"));
            }
        }
        for (NodeCondition condition : conditions(node)) {
            if (condition.getType().equals("Ready") && !"True".equals(condition.getStatus())) {
                Instant since = instant(condition.getLastTransitionTime());
                long tolerated = notReadyToleration(pod, "Unknown".equals(condition.getStatus()));
                if (since != null && now.isAfter(since.plusSeconds(tolerated))) {
                    return Optional.of(new Fault(name, NOT_READY, "node " + name + " has been NotReady since " + since
                            + ", longer than the pod tolerates (" + tolerated + " s): " + text(condition)));
                }
            }
        }
        return Optional.empty();
    }

    /**
     * When {@link #whileRunning} will name this node for this pod if nothing changes: the end of the pod's toleration of
     * the node's NotReady, or of a NoExecute taint it tolerates for a while; none when no such time is coming.
     */
    public static Optional<Instant> dueWhileRunning(Node node, Pod pod) {
        Instant due = null;
        for (Taint taint : taints(node)) {
            Instant since = instant(taint.getTimeAdded());
            if ("NoExecute".equals(taint.getEffect()) && !LIFECYCLE_TAINTS.contains(taint.getKey()) && since != null) {
                for (Toleration toleration : tolerations(pod)) {
                    if (matches(toleration, taint.getKey(), taint.getEffect()) && toleration.getTolerationSeconds() != null) {
                        due = earlier(due, since.plusSeconds(Math.max(0, toleration.getTolerationSeconds())));
                    }
                }
            }
        }
        for (NodeCondition condition : conditions(node)) {
            Instant since = instant(condition.getLastTransitionTime());
            if (condition.getType().equals("Ready") && !"True".equals(condition.getStatus()) && since != null) {
                long tolerated = notReadyToleration(pod, "Unknown".equals(condition.getStatus()));
                if (tolerated < Long.MAX_VALUE / 2) {
                    due = earlier(due, since.plusSeconds(tolerated).plusMillis(1)); // whileRunning asks for after, not at
                }
            }
        }
        return Optional.ofNullable(due);
    }

    private static Instant earlier(Instant a, Instant b) {
        return a == null || b.isBefore(a) ? b : a;
    }

    /** Whether a node change can concern the jobs running on it: it shows a fault, or carries a NoExecute taint. */
    public static boolean concerning(Node node) {
        return of(node).isPresent() || taints(node).stream().anyMatch(taint -> "NoExecute".equals(taint.getEffect()));
    }

    /** Whether a node excluded for this reason is let go as soon as it no longer shows a fault (else only by time). */
    public static boolean visible(String reason) {
        return reason.equals(NOT_READY) || reason.equals(RDMA_TAINTED) || reason.equals(PREFLIGHT_FAILED) || reason.equals(NO_EXECUTE)
                || reason.startsWith("Rdma");
    }

    private static Optional<Fault> rdmaCondition(Node node) {
        for (NodeCondition condition : conditions(node)) {
            if (condition.getType().startsWith("Rdma") && "True".equals(condition.getStatus())) {
                String name = node.getMetadata().getName();
                return Optional.of(new Fault(name, condition.getType(), "node " + name + " " + condition.getType() + ": " + text(condition)));
            }
        }
        return Optional.empty();
    }

    /** Seconds the pod tolerates its node NotReady (Unknown: unreachable) before the taint manager evicts it. */
    private static long notReadyToleration(Pod pod, boolean unreachable) {
        String key = unreachable ? "node.kubernetes.io/unreachable" : "node.kubernetes.io/not-ready";
        for (Toleration toleration : tolerations(pod)) {
            if (matches(toleration, key, "NoExecute")) {
                return toleration.getTolerationSeconds() == null ? Long.MAX_VALUE / 2 : Math.max(0, toleration.getTolerationSeconds());
            }
        }
        return DEFAULT_TOLERATION_SECONDS;
    }

    private static boolean tolerates(Pod pod, Taint taint, Instant now) {
        for (Toleration toleration : tolerations(pod)) {
            if (matches(toleration, taint.getKey(), taint.getEffect()) && (toleration.getValue() == null
                    || "Exists".equals(toleration.getOperator()) || toleration.getValue().equals(taint.getValue()))) {
                Instant since = instant(taint.getTimeAdded());
                return toleration.getTolerationSeconds() == null || since == null || !now.isAfter(since.plusSeconds(toleration.getTolerationSeconds()));
            }
        }
        return false;
    }

    private static boolean matches(Toleration toleration, String key, String effect) {
        boolean keyMatches = toleration.getKey() == null ? "Exists".equals(toleration.getOperator()) : toleration.getKey().equals(key);
        return keyMatches && (toleration.getEffect() == null || toleration.getEffect().isEmpty() || toleration.getEffect().equals(effect));
    }

    private static String text(NodeCondition condition) {
        return condition.getReason() == null ? String.valueOf(condition.getMessage())
                : condition.getMessage() == null ? condition.getReason() : condition.getReason() + ": " + condition.getMessage();
    }

    /** An API time, null when absent or unreadable. */
    static Instant instant(String time) {
        try {
            return time == null ? null : Instant.parse(time);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static List<NodeCondition> conditions(Node node) {
        return node.getStatus() == null || node.getStatus().getConditions() == null ? List.of() : node.getStatus().getConditions();
    }

    private static List<Taint> taints(Node node) {
        return node.getSpec() == null || node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints();
    }

    private static List<Toleration> tolerations(Pod pod) {
        return pod.getSpec() == null || pod.getSpec().getTolerations() == null ? List.of() : pod.getSpec().getTolerations();
    }
}
