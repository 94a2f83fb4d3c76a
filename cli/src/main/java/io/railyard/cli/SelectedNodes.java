package io.railyard.cli;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The nodes a sweep measures (preflight, speedup): by label selector or by name, in name order. */
final class SelectedNodes {
    private SelectedNodes() {}

    static List<Node> of(KubernetesClient client, String selector, List<String> names) {
        if (names != null) {
            List<Node> nodes = new ArrayList<>();
            for (String name : names) {
                Node node = client.nodes().withName(name).get();
                if (node == null) {
                    throw new Railyard.UsageException("node " + name + " does not exist (kubectl get nodes lists them)");
                }
                nodes.add(node);
            }
            return nodes;
        }
        List<Node> nodes = new ArrayList<>(client.nodes().withLabels(labels(selector)).list().getItems());
        if (nodes.isEmpty()) {
            throw new Railyard.UsageException("no node matches --selector " + selector);
        }
        nodes.sort((a, b) -> a.getMetadata().getName().compareTo(b.getMetadata().getName()));
        return nodes;
    }

    /** {@code key=value,...} as a map; a term without '=' is a usage error. */
    static Map<String, String> labels(String selector) {
        Map<String, String> labels = new LinkedHashMap<>();
        for (String term : selector.split(",")) {
            String[] kv = term.strip().split("=", 2);
            if (kv.length != 2 || kv[0].isBlank()) {
                throw new Railyard.UsageException("--selector " + selector + ": each term must be key=value");
            }
            labels.put(kv[0].strip(), kv[1].strip());
        }
        return labels;
    }

    /** How many of the resource the node offers to pods (its allocatable), 0 when none. */
    static long offered(Node node, String resource) {
        Map<String, Quantity> allocatable = node.getStatus() == null ? null : node.getStatus().getAllocatable();
        Quantity quantity = allocatable == null ? null : allocatable.get(resource);
        return quantity == null ? 0 : Quantity.getAmountInBytes(quantity).longValue();
    }
}
