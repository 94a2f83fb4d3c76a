package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.volcano.api.model.scheduling.v1beta1.PodGroup;
import io.fabric8.volcano.api.model.scheduling.v1beta1.PodGroupBuilder;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import java.util.LinkedHashMap;
import java.util.Map;

/** Volcano's PodGroup: the gang is placed whole or not at all, with what it needs in total. */
final class PodGroupModel {
    static final String GROUP_NAME_ANNOTATION = "scheduling.k8s.io/group-name";

    private PodGroupModel() {}

    static PodGroup desired(TrainingJob job, JobSettings settings) {
        int nodes = settings.spec().nodes;
        Map<String, Quantity> minResources = new LinkedHashMap<>();
        minResources.put(Names.GPU_RESOURCE, new Quantity(String.valueOf(nodes * settings.spec().gpusPerNode)));
        minResources.put(settings.rdmaResource(), new Quantity(String.valueOf(nodes * settings.devicesPerNode())));
        if (settings.resources().cpu != null) {
            minResources.put("cpu", times(settings.resources().cpu, nodes));
        }
        if (settings.resources().memory != null) {
            minResources.put("memory", times(settings.resources().memory, nodes));
        }
        String queue = job.getSpec().scheduling == null ? null : job.getSpec().scheduling.queue;
        String priority = job.getSpec().scheduling == null ? null : job.getSpec().scheduling.priorityClassName;
        return new PodGroupBuilder()
                .withMetadata(Ownership.metadata(job, settings.name()))
                .withNewSpec()
                .withMinMember(nodes)
                .withMinResources(minResources)
                .withQueue(queue)
                .withPriorityClassName(priority)
                .endSpec()
                .build();
    }

    private static Quantity times(String quantity, int factor) {
        Quantity q = new Quantity(quantity);
        return new Quantity(q.getNumericalAmount().multiply(java.math.BigDecimal.valueOf(factor)).stripTrailingZeros().toPlainString());
    }
}
