package io.railyard.agent;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the agent's own Node for the labels NCCL's tuning goes by ({@code railyard.io/fabric.shape} and
 * {@code .tiers}, which {@code railyard fabric --labels --apply} writes after the agent may have started), and hands
 * the node's labels on when they change. One watch of one object.
 */
public final class FabricLabelWatch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FabricLabelWatch.class);

    private final SharedIndexInformer<Node> informer;

    private FabricLabelWatch(SharedIndexInformer<Node> informer) {
        this.informer = informer;
    }

    /** @param known the labels the agent started with */
    public static FabricLabelWatch start(KubernetesClient client, String nodeName, Map<String, String> known, Consumer<Map<String, String>> changed) {
        ResourceEventHandler<Node> handler = new ResourceEventHandler<>() {
            private Map<String, String> last = fabric(known);

            @Override
            public void onAdd(Node node) {
                seen(node);
            }

            @Override
            public void onUpdate(Node before, Node node) {
                seen(node);
            }

            @Override
            public void onDelete(Node node, boolean unknownFinalState) {
                // the node is going away: its last labels stand
            }

            private synchronized void seen(Node node) {
                Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
                Map<String, String> now = fabric(labels);
                if (!now.equals(last)) {
                    LOG.info("node {}'s fabric labels are now {}: NCCL is tuned by them from the next allocation", nodeName, now);
                    last = now;
                    changed.accept(labels);
                }
            }
        };
        return new FabricLabelWatch(client.nodes().withName(nodeName).inform(handler));
    }

    private static Map<String, String> fabric(Map<String, String> labels) {
        Map<String, String> fabric = new TreeMap<>();
        labels.forEach((key, value) -> {
            if (ContainerExtras.tunedBy(key)) {
                fabric.put(key, value);
            }
        });
        return fabric;
    }

    @Override
    public void close() {
        informer.close();
    }
}
