package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.railyard.api.Names;
import io.railyard.api.SchedulingSpec;
import io.railyard.api.TopologyRequest;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Kubernetes' own gang (KEP-4671, {@code scheduling.k8s.io/v1beta1} in 1.37): a Workload with one pod-group template
 * whose gang policy is the ranks, the PodGroup made of it, and each member pointing at that group
 * ({@code spec.schedulingGroup.podGroupName}); kube-scheduler's GangScheduling plugin then binds all of them or none.
 * Disruption is {@code All}: a lost member breaks every NCCL communicator, so the group is preempted whole. A topology
 * request becomes the group's topology constraint (alpha in 1.37, gate TopologyAwareWorkloadScheduling): every member
 * under one domain of the label.
 */
public final class WorkloadGangModel {
    public static final String API_VERSION = "scheduling.k8s.io/v1beta1";
    /** The oldest release that serves the API version used here (beta, behind the GenericWorkload gate). */
    public static final String SERVED_SINCE = "1.37";
    static final String TEMPLATE = "ranks";
    private static final String CONSTRAINTS = "schedulingConstraints";

    private WorkloadGangModel() {}

    /** The Workload and its PodGroup, both named after the job. */
    static List<HasMetadata> desired(TrainingJob job, JobSettings settings) {
        Map<String, Object> policy = Map.of("gang", Map.of("minCount", settings.spec().nodes));
        Map<String, Object> template = new LinkedHashMap<>();
        template.put("name", TEMPLATE);
        template.put("schedulingPolicy", policy);
        template.put("disruptionMode", Map.of("all", Map.of()));
        Map<String, Object> group = new LinkedHashMap<>();
        group.put("workloadRef", ordered("workloadName", settings.name(), "templateName", TEMPLATE));
        group.put("schedulingPolicy", policy);
        group.put("disruptionMode", Map.of("all", Map.of()));
        String priority = job.getSpec().scheduling == null ? null : job.getSpec().scheduling.priorityClassName;
        if (priority != null) {
            template.put("priorityClassName", priority);
            group.put("priorityClassName", priority);
        }
        TopologyRequest topology = job.getSpec().scheduling == null ? null : job.getSpec().scheduling.topology;
        if (topology != null) {
            Map<String, Object> constraints = Map.of("topology", List.of(Map.of("key", topology.level)));
            template.put(CONSTRAINTS, constraints);
            group.put(CONSTRAINTS, constraints);
        }
        Map<String, Object> workload = ordered("controllerRef", ordered("apiGroup", Names.GROUP, "kind", "TrainingJob", "name", settings.name()),
                "podGroupTemplates", List.of(template));
        return List.of(object(job, settings, "Workload", workload), object(job, settings, "PodGroup", group));
    }

    /** What a member's spec carries: the group it is scheduled with. */
    static Map<String, Object> schedulingGroup(JobSettings settings) {
        return Map.of("podGroupName", settings.name());
    }

    /** Scheduler kubernetes asked of a cluster that does not serve the API: the operator refuses the job, naming what to turn on. */
    public static Optional<String> unserved(TrainingJobSpec spec, boolean served) {
        return spec.scheduling != null && spec.scheduling.scheduler == SchedulingSpec.Scheduler.KUBERNETES && !served
                ? Optional.of("spec.scheduling.scheduler is kubernetes but this cluster does not serve " + API_VERSION
                        + " Workload and PodGroup (Kubernetes " + SERVED_SINCE + "+ with the feature gate GenericWorkload on the API server"
                        + " and kube-scheduler, and --runtime-config " + API_VERSION + "=true): turn them on, or use volcano or kueue")
                : Optional.empty();
    }

    /**
     * Where the API server stored the Workload or PodGroup without the topology constraint it was sent: it drops the field
     * while the gate TopologyAwareWorkloadScheduling is off, and the gang would be placed anywhere.
     */
    public static Optional<String> dropped(HasMetadata sent, HasMetadata stored) {
        if (!(sent instanceof GenericKubernetesResource desired) || !(stored instanceof GenericKubernetesResource created)
                || !API_VERSION.equals(desired.getApiVersion()) || !(spec(desired).containsKey(CONSTRAINTS)) || spec(created).containsKey(CONSTRAINTS)) {
            return Optional.empty();
        }
        return Optional.of("spec.scheduling.topology: this cluster stored the " + desired.getKind() + " " + desired.getMetadata().getName()
                + " without its topology constraint (kube-scheduler places a gang under one domain only with the feature gate"
                + " TopologyAwareWorkloadScheduling on the API server and kube-scheduler, alpha in " + SERVED_SINCE
                + "): turn it on, or use scheduler kueue or volcano");
    }

    private static Map<?, ?> spec(GenericKubernetesResource object) {
        return object.getAdditionalProperties().get("spec") instanceof Map<?, ?> spec ? spec : Map.of();
    }

    /** Whether a Kubernetes version ("1.37", "v1.37.2") has the API version; served only where the gate is on. */
    public static boolean servedBy(String version) {
        return RestartStrategies.atLeast(version, 37);
    }

    /** A map in the order its keys are given: what render prints reads as the API's documentation does. */
    private static Map<String, Object> ordered(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    private static GenericKubernetesResource object(TrainingJob job, JobSettings settings, String kind, Map<String, Object> spec) {
        return new GenericKubernetesResourceBuilder().withApiVersion(API_VERSION).withKind(kind)
                .withMetadata(Ownership.metadata(job, settings.name())).addToAdditionalProperties("spec", spec).build();
    }
}
