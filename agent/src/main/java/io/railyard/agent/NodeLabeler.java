package io.railyard.agent;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.railyard.api.Names;
import io.railyard.node.NodeInventory;
import io.railyard.node.Port;
import io.railyard.node.Rate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Labels this node with what the scheduler needs to place RDMA jobs: RDMA present, link layer, rate, ports, GPUs, the
 * RoCE traffic class and the InfiniBand partitions.
 */
public final class NodeLabeler {
    private static final String PREFIX = Names.PREFIX;

    private NodeLabeler() {}

    /** The labels for the ports the agent advertises. */
    public static Map<String, String> labels(NodeInventory node, List<Port> ports) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(Names.RDMA_NODE_LABEL, String.valueOf(!ports.isEmpty())); // what training pods require
        List<String> layers = ports.stream().map(p -> p.linkLayer().map(Object::toString).orElse("")).distinct().toList();
        if (!ports.isEmpty()) {
            labels.put(PREFIX + "rdma.link-layer", layers.size() == 1 && !layers.getFirst().isEmpty() ? layers.getFirst() : "mixed");
            ports.stream().filter(p -> p.rate().isKnown())
                    .mapToDouble(p -> p.rate().map(Rate::gigabitsPerSecond).orElse(0d)).min()
                    .ifPresent(gbps -> labels.put(PREFIX + "rdma.rate-gbps", gbps == Math.rint(gbps) ? String.valueOf((long) gbps) : String.valueOf(gbps)));
        }
        labels.put(PREFIX + "rdma.ports", String.valueOf(ports.size()));
        if (ports.stream().anyMatch(Port::isRoce)) {
            java.util.OptionalInt tc = LibraryEnvironment.commonTrafficClass(ports);
            boolean any = ports.stream().filter(Port::isRoce).anyMatch(p -> p.trafficClass().isKnown());
            labels.put(PREFIX + "rdma.traffic-class", tc.isPresent() ? String.valueOf(tc.getAsInt()) : any ? "mixed" : "none");
        }
        sharedPartitions(ports).ifPresent(partitions -> labels.put(PREFIX + "rdma.pkeys", partitions));
        labels.put(PREFIX + "gpus", String.valueOf(node.gpus().size()));
        return labels;
    }

    /** The partitions every port with a P_Key table is in, {@code 0x7fff.0x0001}: what a job's pkey can ask for here. */
    private static java.util.Optional<String> sharedPartitions(List<Port> ports) {
        List<Port> keyed = ports.stream().filter(p -> !p.pkeys().isEmpty()).toList();
        if (keyed.isEmpty()) {
            return java.util.Optional.empty();
        }
        java.util.Set<Integer> shared = new java.util.TreeSet<>(keyed.getFirst().pkeys().stream().map(io.railyard.node.PKey::partition).toList());
        keyed.forEach(p -> shared.retainAll(p.pkeys().stream().map(io.railyard.node.PKey::partition).toList()));
        return java.util.Optional.of(shared.isEmpty() ? "none" : shared.stream().sorted(java.util.Comparator.reverseOrder())
                .map(partition -> String.format("0x%04x", partition)).collect(java.util.stream.Collectors.joining(".")));
    }

    /**
     * Patches the labels onto the named Node, and nothing else: a merge patch without a resource version, since the Node
     * changes under the agent all the time (a read-then-write lost to a kubelet's update with 409 on a real API server).
     */
    public static void apply(KubernetesClient client, String nodeName, Map<String, String> labels) {
        if (client.nodes().withName(nodeName).get() == null) {
            throw new KubernetesClientException("node " + nodeName + " does not exist");
        }
        client.nodes().withName(nodeName).patch(PatchContext.of(PatchType.JSON_MERGE),
                Serialization.asJson(Map.of("metadata", Map.of("labels", labels))));
    }
}
