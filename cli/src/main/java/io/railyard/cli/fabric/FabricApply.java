package io.railyard.cli.fabric;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.railyard.fabric.SchedulerObjects;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Writes the fabric's labels and scheduler objects to the cluster, a line per object changed. */
public final class FabricApply {
    public static final ResourceDefinitionContext HYPER_NODES = new ResourceDefinitionContext.Builder().withGroup("topology.volcano.sh")
            .withVersion("v1alpha1").withKind("HyperNode").withPlural("hypernodes").withNamespaced(false).build();
    public static final ResourceDefinitionContext KUEUE_TOPOLOGIES = new ResourceDefinitionContext.Builder().withGroup("kueue.x-k8s.io")
            .withVersion("v1beta1").withKind("Topology").withPlural("topologies").withNamespaced(false).build();

    private final KubernetesClient client;
    private final PrintWriter out;

    public FabricApply(KubernetesClient client, PrintWriter out) {
        this.client = client;
        this.out = out;
    }

    /** Merges the labels into each node; a host the cluster has no node for is named, not an error. */
    public void labels(Map<String, Map<String, String>> labels) {
        for (Map.Entry<String, Map<String, String>> node : labels.entrySet()) {
            Resource<Node> resource = client.nodes().withName(node.getKey());
            Node current = resource.get();
            if (current == null) {
                out.println("node/" + node.getKey() + " not found: the fabric's host name differs from the node's (give --node-name-map)");
                continue;
            }
            Map<String, String> labelsNow = Objects.requireNonNullElse(current.getMetadata().getLabels(), Map.of());
            if (node.getValue().entrySet().stream().allMatch(l -> l.getValue().equals(labelsNow.get(l.getKey())))) {
                continue;
            }
            resource.patch(PatchContext.of(PatchType.JSON_MERGE), Serialization.asJson(Map.of("metadata", Map.of("labels", node.getValue()))));
            out.println("node/" + node.getKey() + " labelled " + node.getValue().entrySet().stream()
                    .map(l -> l.getKey() + "=" + l.getValue()).collect(Collectors.joining(" ")));
        }
    }

    /** Creates or updates the HyperNodes, and deletes the ones Railyard made earlier that the fabric no longer has. */
    public void hyperNodes(List<Map<String, Object>> hyperNodes) {
        var api = client.genericKubernetesResources(HYPER_NODES);
        Map<String, GenericKubernetesResource> existing = api.list().getItems().stream()
                .collect(Collectors.toMap(h -> h.getMetadata().getName(), Function.identity()));
        Set<String> wanted = hyperNodes.stream().map(FabricApply::name).collect(Collectors.toSet());
        for (Map<String, Object> hyperNode : hyperNodes) {
            createOrUpdate(api, hyperNode, existing.get(name(hyperNode)), "hypernode");
        }
        for (GenericKubernetesResource old : existing.values()) {
            Map<String, String> labels = Objects.requireNonNullElse(old.getMetadata().getLabels(), Map.of());
            if (!wanted.contains(old.getMetadata().getName()) && "railyard".equals(labels.get(SchedulerObjects.MANAGED_BY))) {
                api.withName(old.getMetadata().getName()).delete();
                out.println("hypernode/" + old.getMetadata().getName() + " deleted: no longer in the fabric");
            }
        }
    }

    /** Kueue does not let a Topology's levels change: one with other levels is reported, not replaced under Kueue's feet. */
    public void kueueTopology(Map<String, Object> topology) {
        var api = client.genericKubernetesResources(KUEUE_TOPOLOGIES);
        GenericKubernetesResource current = api.withName(name(topology)).get();
        if (current != null && !Objects.equals(current.getAdditionalProperties().get("spec"), topology.get("spec"))) {
            throw new IllegalStateException("Topology " + name(topology) + " exists with other levels, and Kueue does not let levels change:"
                    + " delete it (kubectl delete topology " + name(topology) + ") and the ResourceFlavors that name it, then run again");
        }
        createOrUpdate(api, topology, current, "topology");
    }

    /** Creates the object, or updates the current one when its spec differs. */
    private void createOrUpdate(NonNamespaceOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> api,
            Map<String, Object> object, GenericKubernetesResource current, String kind) {
        GenericKubernetesResource desired = Serialization.unmarshal(Serialization.asJson(object), GenericKubernetesResource.class);
        if (current == null) {
            api.resource(desired).create();
            out.println(kind + "/" + name(object) + " created");
        } else if (!Objects.equals(current.getAdditionalProperties().get("spec"), desired.getAdditionalProperties().get("spec"))) {
            desired.getMetadata().setResourceVersion(current.getMetadata().getResourceVersion());
            api.resource(desired).update();
            out.println(kind + "/" + name(object) + " updated");
        }
    }

    @SuppressWarnings("unchecked")
    private static String name(Map<String, Object> object) {
        return (String) ((Map<String, Object>) object.get("metadata")).get("name");
    }
}
