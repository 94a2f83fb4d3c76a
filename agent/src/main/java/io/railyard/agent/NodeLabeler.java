package io.railyard.agent;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.railyard.api.Names;
import io.railyard.node.NodeInventory;
import io.railyard.node.Port;
import io.railyard.node.Rate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Labels this node with what the scheduler needs to place RDMA jobs: RDMA present, link layer, rate, ports, GPUs. */
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
        labels.put(PREFIX + "gpus", String.valueOf(node.gpus().size()));
        return labels;
    }

    /** Patches the labels onto the named Node, and nothing else. */
    public static void apply(KubernetesClient client, String nodeName, Map<String, String> labels) {
        if (client.nodes().withName(nodeName).get() == null) {
            throw new KubernetesClientException("node " + nodeName + " does not exist");
        }
        client.nodes().withName(nodeName).edit(node -> {
            node.getMetadata().getLabels().putAll(labels);
            return node;
        });
    }
}
