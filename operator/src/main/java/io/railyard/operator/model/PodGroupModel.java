package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.volcano.api.model.scheduling.v1beta1.PodGroup;
import io.fabric8.volcano.api.model.scheduling.v1beta1.PodGroupBuilder;
import io.railyard.api.Names;
import io.railyard.api.TopologyRequest;
import io.railyard.api.TrainingJob;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Volcano's PodGroup: the gang is placed whole or not at all, with what it needs in total, and, with a topology request,
 * within one HyperNode of the tier the requested label stands for.
 */
final class PodGroupModel {
    static final String GROUP_NAME_ANNOTATION = "scheduling.k8s.io/group-name";
    /** The HyperNode tier of each label railyard fabric writes: tier 1 per leaf or rail group, tier 2 per spine group. */
    static final Map<String, Integer> HYPER_NODE_TIERS = Map.of(Names.IB_LEAF_LABEL, 1, Names.IB_SPINE_GROUP_LABEL, 2);

    private PodGroupModel() {}

    /**
     * {@code minResources} is the sum of the pods' own requests, nothing more: a resource the pods do not ask for (the
     * RDMA resource of a job whose NICs come from a DRA claim) would keep Volcano from ever admitting the gang. Rank 0
     * alone carries the hang watch; ranks 1 and up differ only in their names and ranks, so their requests are rank 1's
     * times their count (the gang's pods are not built for it).
     */
    static PodGroup desired(TrainingJob job, JobSettings settings, String railyardImage) {
        int nodes = settings.spec().nodes;
        Map<String, Quantity> minResources = new LinkedHashMap<>(requests(PodModel.desired(job, settings, 0, railyardImage)));
        if (nodes > 1) {
            requests(PodModel.desired(job, settings, 1, railyardImage)).forEach((resource, amount) -> minResources.merge(resource,
                    amount.multiply(nodes - 1), Quantity::add));
        }
        String queue = job.getSpec().scheduling == null ? null : job.getSpec().scheduling.queue;
        String priority = job.getSpec().scheduling == null ? null : job.getSpec().scheduling.priorityClassName;
        PodGroup group = new PodGroupBuilder()
                .withMetadata(Ownership.metadata(job, settings.name()))
                .withNewSpec()
                .withMinMember(settings.spec().nodes)
                .withMinResources(minResources)
                .withQueue(queue)
                .withPriorityClassName(priority)
                .endSpec()
                .build();
        TopologyRequest topology = job.getSpec().scheduling == null ? null : job.getSpec().scheduling.topology;
        if (topology != null && HYPER_NODE_TIERS.containsKey(topology.level)) {
            // Volcano's networkTopology (v1.12 and later); fabric8's model of the PodGroup predates it
            group.getSpec().getAdditionalProperties().put("networkTopology", Map.of(
                    "mode", topology.mode == TopologyRequest.Mode.PREFERRED ? "soft" : "hard",
                    "highestTierAllowed", HYPER_NODE_TIERS.get(topology.level)));
        }
        return group;
    }

    /** A pod's requests as the scheduler counts them: its containers' together, or its largest init container's. */
    static Map<String, Quantity> requests(Pod pod) {
        Map<String, Quantity> running = new LinkedHashMap<>();
        pod.getSpec().getContainers().forEach(container -> requests(container).forEach((r, amount) -> running.merge(r, amount, Quantity::add)));
        for (Container init : pod.getSpec().getInitContainers()) {
            requests(init).forEach((r, amount) -> running.merge(r, amount,
                    (a, b) -> a.getNumericalAmount().compareTo(b.getNumericalAmount()) >= 0 ? a : b));
        }
        return running;
    }

    private static Map<String, Quantity> requests(Container container) {
        return container.getResources() == null || container.getResources().getRequests() == null ? Map.of()
                : container.getResources().getRequests();
    }
}
