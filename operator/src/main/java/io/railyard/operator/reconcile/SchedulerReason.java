package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.volcano.api.model.scheduling.v1beta1.PodGroup;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.railyard.api.TrainingJob;
import io.railyard.operator.model.KueueGroup;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the gang scheduler says of a gang, in its own words. Volcano writes why a gang waits into the PodGroup's
 * {@code Unschedulable} condition ("4/4 tasks in gang unschedulable: ..."); Kueue into the Workload of the current
 * run's pod group (named as the group, {@link KueueGroup#name}) as {@code QuotaReserved} False ("couldn't assign flavors to pod set ..."), and why it
 * took a running gang's pods away as {@code Evicted} True (reason {@code Preempted}, ...). kube-scheduler, with its own
 * gangs (scheduler kubernetes) or without, into each pod it could not place: {@code PodScheduled} False, reason
 * {@code Unschedulable}. The operator's caches hold all three.
 */
final class SchedulerReason {
    private SchedulerReason() {}

    /**
     * The scheduler's reason for leaving the job's gang waiting, if it gives one; empty where neither API is served or all
     * is placed. @param job the job with the status of its current run
     */
    static Optional<String> of(Context<TrainingJob> context, TrainingJob job, List<Pod> pods) {
        String name = job.getMetadata().getName();
        Optional<String> volcano = context.eventSourceRetriever().getEventSourcesFor(PodGroup.class).isEmpty()
                ? Optional.empty() : of(context.getSecondaryResources(PodGroup.class), name);
        return volcano.or(() -> workload(context, KueueGroup.name(job)).flatMap(workload -> condition(workload, "QuotaReserved", "False"))
                .map(message -> "kueue: " + message)).or(() -> unschedulable(pods));
    }

    /**
     * The words of the scheduler that could not place a pod of the run, in the pod's {@code PodScheduled} condition. With
     * its own gangs kube-scheduler writes the group's verdict ("pod group is unschedulable, ...") into the pod it tried the
     * group with and each other pod's own ("0/3 nodes are available: ..."): the group's is the reason.
     */
    static Optional<String> unschedulable(List<Pod> pods) {
        List<String> said = pods.stream()
                .filter(pod -> pod.getSpec().getNodeName() == null && pod.getStatus() != null && pod.getStatus().getConditions() != null)
                .sorted(java.util.Comparator.comparing(pod -> pod.getMetadata().getName()))
                .flatMap(pod -> pod.getStatus().getConditions().stream()
                        .filter(c -> "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()) && "Unschedulable".equals(c.getReason())
                                && c.getMessage() != null && !c.getMessage().isBlank())
                        .map(c -> scheduler(pod) + ": " + c.getMessage()))
                .toList();
        return said.stream().filter(message -> message.contains(": pod group ")).findFirst().or(() -> said.stream().findFirst());
    }

    private static String scheduler(Pod pod) {
        String name = pod.getSpec().getSchedulerName();
        return name == null || name.equals("default-scheduler") ? "kube-scheduler" : name;
    }

    /** Kueue's words when it evicted the job's gang (a preemption, its queue stopped): not the job's failure. */
    static Optional<String> evicted(Context<TrainingJob> context, TrainingJob job) {
        return workload(context, KueueGroup.name(job)).flatMap(workload -> condition(workload, "Evicted", "True"))
                .map(message -> "kueue evicted the gang: " + message);
    }

    static Optional<String> of(Collection<PodGroup> groups, String job) {
        return groups.stream().filter(group -> group.getMetadata().getName().equals(job))
                .filter(group -> group.getStatus() != null && group.getStatus().getConditions() != null)
                .flatMap(group -> group.getStatus().getConditions().stream())
                .filter(condition -> "Unschedulable".equals(condition.getType()) && "True".equals(condition.getStatus())
                        && condition.getMessage() != null && !condition.getMessage().isBlank())
                .reduce((first, second) -> second) // the latest the scheduler wrote
                .map(condition -> "volcano: " + condition.getMessage());
    }

    /** The message of the Workload's condition {@code type} when it has {@code status}. */
    static Optional<String> condition(GenericKubernetesResource workload, String type, String status) {
        Object conditions = workload.getAdditionalProperties().get("status") instanceof Map<?, ?> s ? s.get("conditions") : null;
        if (!(conditions instanceof List<?> list)) {
            return Optional.empty();
        }
        return list.stream().filter(Map.class::isInstance).map(Map.class::cast)
                .filter(c -> type.equals(c.get("type")) && status.equals(c.get("status")) && c.get("message") instanceof String m && !m.isBlank())
                .map(c -> (String) c.get("message")).findFirst();
    }

    private static Optional<GenericKubernetesResource> workload(Context<TrainingJob> context, String group) {
        if (context.eventSourceRetriever().getEventSourcesFor(GenericKubernetesResource.class).isEmpty()) {
            return Optional.empty();
        }
        return context.getSecondaryResources(GenericKubernetesResource.class).stream()
                .filter(workload -> JobInformers.KUEUE_WORKLOAD.getKind().equals(workload.getKind()) && workload.getMetadata().getName().equals(group))
                .findFirst();
    }
}
