package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.volcano.api.model.scheduling.v1beta1.PodGroup;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.GroupVersionKind;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.operator.model.NodeFaults;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Map;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The caches a reconcile reads instead of the API server: the gang's pods, Service, PodGroup and ResourceClaimTemplate
 * (watched by the job label, mapped to their job by owner reference) and the RDMA nodes, for rank order and for the
 * health of the nodes a gang runs on. A steady job costs no request. PodGroups and claim templates are watched only where the cluster serves their API,
 * as are Kueue's Workloads, which Kueue names after the pod group: the job's name and its run.
 */
final class JobInformers {
    static final GroupVersionKind KUEUE_WORKLOAD = new GroupVersionKind("kueue.x-k8s.io", "v1beta2", "Workload");
    private static final String BY_NODE = "railyard-node";

    private JobInformers() {}

    static List<EventSource<?, TrainingJob>> prepare(EventSourceContext<TrainingJob> context) {
        List<EventSource<?, TrainingJob>> sources = new ArrayList<>();
        InformerEventSource<Pod, TrainingJob> pods = owned(Pod.class, context);
        pods.addIndexers(Map.of(BY_NODE, pod -> pod.getSpec() == null || pod.getSpec().getNodeName() == null
                ? List.of() : List.of(pod.getSpec().getNodeName())));
        sources.add(pods);
        sources.add(owned(Service.class, context));
        for (Class<? extends HasMetadata> optional : List.of(PodGroup.class, ResourceClaimTemplate.class)) {
            if (serves(context, optional)) {
                sources.add(owned(optional, context));
            }
        }
        if (serves(context, KUEUE_WORKLOAD)) {
            sources.add(new InformerEventSource<>(InformerEventSourceConfiguration.from(KUEUE_WORKLOAD, TrainingJob.class)
                    .withSecondaryToPrimaryMapper(workload -> Set.of(new ResourceID(workload.getMetadata().getName().replaceFirst("-\\d+$", ""),
                            workload.getMetadata().getNamespace()))).build(), context));
        }
        // nodes are not the job's: read for their labels and health; one that turns faulty wakes the jobs on it
        // cluster-scoped: watched whole whatever namespaces the operator watches (in one namespace's path it sees none)
        sources.add(new InformerEventSource<>(InformerEventSourceConfiguration.from(Node.class, TrainingJob.class)
                .withWatchAllNamespaces().withFollowControllerNamespacesChanges(false)
                .withLabelSelector(Names.RDMA_NODE_LABEL + "=true").withSecondaryToPrimaryMapper(node -> jobsOn(node, pods)).build(), context));
        return sources;
    }

    /** The jobs with a pod on a node that shows a fault: a node that is fine concerns nobody. */
    private static Set<ResourceID> jobsOn(Node node, InformerEventSource<Pod, TrainingJob> pods) {
        if (!NodeFaults.concerning(node)) {
            return Set.of();
        }
        Set<ResourceID> jobs = new HashSet<>();
        for (Pod pod : pods.byIndex(BY_NODE, node.getMetadata().getName())) {
            String job = pod.getMetadata().getLabels() == null ? null : pod.getMetadata().getLabels().get(Names.JOB_LABEL);
            if (job != null) {
                jobs.add(new ResourceID(job, pod.getMetadata().getNamespace()));
            }
        }
        return jobs;
    }

    /** Whether an owned object is in the cache; null when its kind has no cache here (read it from the API). */
    static Boolean cached(Context<TrainingJob> context, HasMetadata object) {
        if (context.eventSourceRetriever().getEventSourcesFor(object.getClass()).isEmpty()) { // a kind the cluster does not serve
            return null;
        }
        return context.getSecondaryResourcesAsStream(object.getClass())
                .anyMatch(cached -> ((HasMetadata) cached).getMetadata().getName().equals(object.getMetadata().getName()));
    }

    /**
     * The job's cached pods. Not {@code getSecondaryResources}, which collects them into a set and so hashes each pod
     * whole, its managed fields too: two of those took most of a 1,024-node gang's reconcile (bench/real-cluster.sh).
     */
    static List<Pod> pods(Context<TrainingJob> context) {
        return context.getSecondaryResourcesAsStream(Pod.class).toList();
    }

    /** A node from the cache of RDMA nodes. */
    @SuppressWarnings("unchecked")
    static Optional<Node> node(Context<TrainingJob> context, String name) {
        InformerEventSource<Node, TrainingJob> nodes = (InformerEventSource<Node, TrainingJob>) context.eventSourceRetriever()
                .getEventSourceFor(Node.class);
        return nodes.get(new ResourceID(name));
    }

    private static <R extends HasMetadata> InformerEventSource<R, TrainingJob> owned(Class<R> type, EventSourceContext<TrainingJob> context) {
        return new InformerEventSource<>(InformerEventSourceConfiguration.from(type, TrainingJob.class)
                .withLabelSelector(Names.JOB_LABEL).build(), context);
    }

    private static boolean serves(EventSourceContext<TrainingJob> context, GroupVersionKind kind) {
        try {
            return context.getClient().supports(kind.apiVersion(), kind.getKind());
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static boolean serves(EventSourceContext<TrainingJob> context, Class<? extends HasMetadata> type) {
        try {
            return context.getClient().supports(type);
        } catch (RuntimeException e) {
            return false;
        }
    }
}
