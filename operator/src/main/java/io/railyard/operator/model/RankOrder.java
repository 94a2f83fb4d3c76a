package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Ranks in topology order: once every pod of the gang has a node, pods are sorted by their nodes' topology labels
 * (outermost first, e.g. spine then leaf), then by node name, so that NCCL's ring crosses as few switches as possible.
 */
public final class RankOrder {
    /** A label a node lacks sorts after every value. */
    private static final String MISSING = "\uffff";

    /** One pod's place: its rank, and the node it runs on. */
    public record Rank(int rank, String pod, String node) {}

    private RankOrder() {}

    /**
     * @param nodeLabels each node's labels, by node name
     * @return the ranks, rank 0 first; empty while a pod has no node yet
     */
    public static List<Rank> of(List<Pod> pods, Map<String, Map<String, String>> nodeLabels, List<String> topologyKeys) {
        if (pods.stream().anyMatch(pod -> pod.getSpec() == null || pod.getSpec().getNodeName() == null)) {
            return List.of();
        }
        Comparator<Pod> order = Comparator.comparing(pod -> "");
        for (String key : topologyKeys) {
            order = order.thenComparing(pod -> nodeLabels.getOrDefault(pod.getSpec().getNodeName(), Map.of()).getOrDefault(key, MISSING));
        }
        order = order.thenComparing(pod -> pod.getSpec().getNodeName()).thenComparing(pod -> pod.getMetadata().getName());
        List<Pod> sorted = new ArrayList<>(pods);
        sorted.sort(order);
        List<Rank> ranks = new ArrayList<>();
        for (int rank = 0; rank < sorted.size(); rank++) {
            ranks.add(new Rank(rank, sorted.get(rank).getMetadata().getName(), sorted.get(rank).getSpec().getNodeName()));
        }
        return ranks;
    }

    /** Rank 0's DNS name through the job's headless Service: the master address every rank connects to. */
    public static String masterAddress(List<Rank> ranks, String job, String namespace) {
        return ranks.getFirst().pod() + "." + job + "." + namespace + ".svc";
    }
}
