package io.railyard.agent.dra;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.railyard.agent.PortHealth;
import io.railyard.api.Names;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's ResourceSlices: one pool named after the node, at most 128 devices a slice, owned by the Node. A change
 * rewrites the pool's slices with the next generation; a slice someone deletes (the kubelet wipes a node's slices
 * when it starts) is written again. The slices carry a label, so that this agent lists and watches only its own.
 */
final class SlicePublisher implements AutoCloseable {
    static final String NODE_LABEL = Names.PREFIX + "dra-node";
    static final int MAX_DEVICES = 128;
    private static final Logger LOG = LoggerFactory.getLogger(SlicePublisher.class);

    private final KubernetesClient client;
    private final String driver;
    private final String node;
    private List<Device> published = List.of();
    private long generation;
    private SharedIndexInformer<ResourceSlice> informer;
    private Runnable onDeleted = () -> { };

    SlicePublisher(KubernetesClient client, String driver, String node) {
        this.client = client;
        this.driver = driver;
        this.node = node;
    }

    /** The slices for these devices: pure, what {@link #publish} writes. */
    static List<ResourceSlice> desired(String driver, String node, String nodeUid, long generation, List<Device> devices) {
        List<List<Device>> chunks = new ArrayList<>();
        for (int start = 0; start < devices.size() || chunks.isEmpty(); start += MAX_DEVICES) {
            chunks.add(devices.subList(start, Math.min(devices.size(), start + MAX_DEVICES)));
        }
        List<ResourceSlice> slices = new ArrayList<>();
        for (int i = 0; i < chunks.size(); i++) {
            ResourceSliceBuilder slice = new ResourceSliceBuilder().withNewMetadata().withName(sliceName(driver, node, i))
                    .addToLabels(NODE_LABEL, node).endMetadata()
                    .withNewSpec().withDriver(driver).withNodeName(node)
                    .withNewPool().withName(node).withGeneration(generation).withResourceSliceCount((long) chunks.size()).endPool()
                    .withDevices(chunks.get(i)).endSpec();
            if (nodeUid != null) {
                slice.editMetadata().withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("v1").withKind("Node").withName(node)
                        .withUid(nodeUid).withController(true).build()).endMetadata();
            }
            slices.add(slice.build());
        }
        return slices;
    }

    static List<Device> devices(List<DraDevice> devices, Map<String, PortHealth> health) {
        return devices.stream().map(d -> new DeviceBuilder().withName(d.name())
                .withAttributes(d.attributes(health.getOrDefault(d.name(), new PortHealth(false, "not read yet")))).build()).toList();
    }

    static String sliceName(String driver, String node, int index) {
        return node + "-" + driver.replace('.', '-') + "-" + index;
    }

    /** Writes the pool when its devices differ from what was published, or a slice is missing. */
    synchronized void publish(List<Device> devices) {
        List<ResourceSlice> existing = client.resources(ResourceSlice.class).withLabel(NODE_LABEL, node).list().getItems().stream()
                .filter(slice -> driver.equals(slice.getSpec().getDriver())).sorted(Comparator.comparing(s -> s.getMetadata().getName())).toList();
        int wanted = Math.max(1, (devices.size() + MAX_DEVICES - 1) / MAX_DEVICES);
        if (devices.equals(published) && existing.size() == wanted) {
            return;
        }
        generation = Math.max(generation, existing.stream().mapToLong(s -> s.getSpec().getPool().getGeneration()).max().orElse(0)) + 1;
        List<ResourceSlice> slices = desired(driver, node, nodeUid(), generation, devices);
        for (ResourceSlice slice : slices) {
            ResourceSlice current = existing.stream().filter(s -> s.getMetadata().getName().equals(slice.getMetadata().getName())).findFirst().orElse(null);
            if (current == null) {
                client.resource(slice).create();
            } else {
                slice.getMetadata().setResourceVersion(current.getMetadata().getResourceVersion());
                client.resource(slice).update();
            }
        }
        List<String> names = slices.stream().map(s -> s.getMetadata().getName()).toList();
        existing.stream().filter(s -> !names.contains(s.getMetadata().getName())).forEach(s -> client.resource(s).delete());
        published = devices;
        LOG.info("ResourceSlices of pool {} (driver {}): {} devices, generation {}", node, driver, devices.size(), generation);
    }

    private String nodeUid() {
        try {
            Node found = client.nodes().withName(node).get();
            return found == null ? null : found.getMetadata().getUid();
        } catch (KubernetesClientException e) {
            return null; // the slices are written without an owner rather than not at all
        }
    }

    /** Calls {@code republish} when one of this node's slices is deleted. */
    void watchDeletions(Runnable republish) {
        onDeleted = republish;
        informer = client.resources(ResourceSlice.class).withLabel(NODE_LABEL, node).inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ResourceSlice slice) { }

            @Override
            public void onUpdate(ResourceSlice before, ResourceSlice after) { }

            @Override
            public void onDelete(ResourceSlice slice, boolean unknownFinalState) {
                if (Objects.equals(driver, slice.getSpec().getDriver())) {
                    LOG.info("ResourceSlice {} was deleted: writing the pool again", slice.getMetadata().getName());
                    synchronized (SlicePublisher.this) {
                        published = List.of();
                    }
                    onDeleted.run();
                }
            }
        });
    }

    @Override
    public void close() {
        if (informer != null) {
            informer.close();
        }
    }
}
