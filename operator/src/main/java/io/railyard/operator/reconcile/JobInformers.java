package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.volcano.api.model.scheduling.v1beta1.PodGroup;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The caches a reconcile reads instead of the API server: the gang's pods, Service, PodGroup and ResourceClaimTemplate
 * (watched by the job label, mapped to their job by owner reference) and the RDMA nodes' labels for rank order. A
 * steady job costs no request. PodGroups and claim templates are watched only where the cluster serves their API.
 */
final class JobInformers {
    private JobInformers() {}

    static List<EventSource<?, TrainingJob>> prepare(EventSourceContext<TrainingJob> context) {
        List<EventSource<?, TrainingJob>> sources = new ArrayList<>();
        sources.add(owned(Pod.class, context));
        sources.add(owned(Service.class, context));
        for (Class<? extends HasMetadata> optional : List.of(PodGroup.class, ResourceClaimTemplate.class)) {
            if (serves(context, optional)) {
                sources.add(owned(optional, context));
            }
        }
        // nodes are not the job's: they are read for their topology labels and trigger nothing
        sources.add(new InformerEventSource<>(InformerEventSourceConfiguration.from(Node.class, TrainingJob.class)
                .withLabelSelector(Names.RDMA_NODE_LABEL + "=true").withSecondaryToPrimaryMapper(node -> Set.of()).build(), context));
        return sources;
    }

    /** Whether an owned object is in the cache; null when its kind has no cache here (read it from the API). */
    static Boolean cached(Context<TrainingJob> context, HasMetadata object) {
        if (context.eventSourceRetriever().getEventSourcesFor(object.getClass()).isEmpty()) { // a kind the cluster does not serve
            return null;
        }
        return context.getSecondaryResources(object.getClass()).stream()
                .anyMatch(cached -> ((HasMetadata) cached).getMetadata().getName().equals(object.getMetadata().getName()));
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

    private static boolean serves(EventSourceContext<TrainingJob> context, Class<? extends HasMetadata> type) {
        try {
            return context.getClient().supports(type);
        } catch (RuntimeException e) {
            return false;
        }
    }
}
