package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import io.railyard.operator.model.GangState;
import io.railyard.operator.model.RankOrder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A placed gang's ranks: by index, or by the nodes' topology labels, written onto the pods once. */
final class GangRanks {
    private GangRanks() {}

    /** The gang's ranks once every pod is placed, in topology order where the job asks, each pod labelled (and annotated) with its own. */
    static List<TrainingJobStatus.Rank> of(Context<TrainingJob> context, KubernetesClient client, TrainingJob job, List<Pod> pods,
            GangState gang) {
        if (gang.scheduled() < gang.expected() || gang.created() < gang.expected()) {
            return null;
        }
        List<String> keys = job.getSpec().scheduling == null || job.getSpec().scheduling.topologyKeys == null
                ? List.of() : job.getSpec().scheduling.topologyKeys;
        Map<String, Map<String, String>> labels = new HashMap<>();
        if (!keys.isEmpty()) {
            for (Pod pod : pods) {
                Node node = JobInformers.node(context, pod.getSpec().getNodeName()).orElse(null);
                labels.put(pod.getSpec().getNodeName(), node == null || node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels());
            }
        }
        List<RankOrder.Rank> order = keys.isEmpty()
                ? pods.stream().sorted((a, b) -> index(a) - index(b))
                        .map(pod -> new RankOrder.Rank(index(pod), pod.getMetadata().getName(), pod.getSpec().getNodeName())).toList()
                : RankOrder.of(pods, labels, keys);
        String master = keys.isEmpty() ? null : RankOrder.masterAddress(order, job.getMetadata().getName(), job.getMetadata().getNamespace());
        Map<String, Pod> byName = new HashMap<>();
        pods.forEach(pod -> byName.put(pod.getMetadata().getName(), pod));
        for (RankOrder.Rank rank : order) {
            markRank(client, job, byName.get(rank.pod()), rank, master);
        }
        return order.stream().map(rank -> {
            TrainingJobStatus.Rank entry = new TrainingJobStatus.Rank();
            entry.rank = rank.rank();
            entry.pod = rank.pod();
            entry.node = rank.node();
            return entry;
        }).toList();
    }

    /**
     * Labels a pod with its rank (the agent's port attribution reads it) and, when the rank follows the topology
     * ({@code master} not null), writes the rank and master address its await-rank init container is waiting for. Once.
     */
    private static void markRank(KubernetesClient client, TrainingJob job, Pod pod, RankOrder.Rank rank, String master) {
        String value = String.valueOf(rank.rank());
        Map<String, String> annotations = pod.getMetadata().getAnnotations() == null ? Map.of() : pod.getMetadata().getAnnotations();
        Map<String, String> labels = pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
        boolean annotated = master == null || value.equals(annotations.get(Names.NODE_RANK_ANNOTATION)) && master.equals(annotations.get(Names.MASTER_ADDR_ANNOTATION));
        if (annotated && value.equals(labels.get(Names.RANK_LABEL))) {
            return;
        }
        // a merge patch, no read first: the operator's role may patch pods, never get one (the cache has them)
        Map<String, Object> metadata = new HashMap<>();
        metadata.put("labels", Map.of(Names.RANK_LABEL, value));
        if (master != null) {
            metadata.put("annotations", Map.of(Names.NODE_RANK_ANNOTATION, value, Names.MASTER_ADDR_ANNOTATION, master));
        }
        client.pods().inNamespace(job.getMetadata().getNamespace()).resource(pod) // the cached pod given: no GET before the patch
                .patch(PatchContext.of(PatchType.JSON_MERGE), Serialization.asJson(Map.of("metadata", metadata)));
    }

    private static int index(Pod pod) {
        return Integer.parseInt(pod.getMetadata().getLabels().get(Names.INDEX_LABEL));
    }
}
