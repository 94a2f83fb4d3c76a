package io.railyard.fabric;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Node labels, Volcano HyperNodes and a Kueue Topology that follow the fabric's cables, as plain maps ready to be written as
 * YAML or JSON. Field names follow the projects' Go types: Volcano {@code topology.volcano.sh/v1alpha1} HyperNode, Kueue
 * {@code kueue.x-k8s.io/v1beta1} Topology.
 */
public final class SchedulerObjects {
    /** The leaf, or the rail group of a rail-optimized host: hosts with the same value are one switch hop apart on every rail. */
    public static final String LEAF_LABEL = "railyard.io/ib-leaf";
    /** The group of spines a host's leaves uplink to: hosts with the same value are at most three switch hops apart. */
    public static final String SPINE_GROUP_LABEL = "railyard.io/ib-spine-group";
    public static final String HOSTNAME_LABEL = "kubernetes.io/hostname";
    public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    public static final String KUEUE_TOPOLOGY_NAME = "railyard-infiniband";

    private SchedulerObjects() {}

    /** Each Kubernetes node's fabric labels, by node name: its leaf group and spine group (none without a leaf) and the fabric's shape. */
    public static Map<String, Map<String, String>> labels(Topology topology) {
        FabricShape shape = FabricShape.of(topology);
        Map<String, Map<String, String>> labels = new LinkedHashMap<>();
        for (Topology.Host host : topology.hosts()) {
            Map<String, String> nodeLabels = new LinkedHashMap<>();
            if (host.group() != null) {
                nodeLabels.put(LEAF_LABEL, host.group());
                String spineGroup = topology.group(host.group()).spineGroup();
                if (spineGroup != null) {
                    nodeLabels.put(SPINE_GROUP_LABEL, spineGroup);
                }
            }
            nodeLabels.putAll(shapeLabels(shape));
            labels.put(host.node(), nodeLabels);
        }
        return labels;
    }

    /** The shape's labels: what the device plugin and the DRA driver tune NCCL by. */
    public static Map<String, String> shapeLabels(FabricShape shape) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(FabricShape.SHAPE_LABEL, shape.kind().label());
        labels.put(FabricShape.TIERS_LABEL, String.valueOf(shape.tiers()));
        return labels;
    }

    /** Tier 1: one HyperNode per leaf or rail group with its nodes; tier 2: one per spine group with its tier-1 HyperNodes. */
    public static List<Map<String, Object>> hyperNodes(Topology topology) {
        List<Map<String, Object>> hyperNodes = new ArrayList<>();
        for (Topology.Group group : topology.groups()) {
            List<String> nodes = topology.hosts().stream().filter(h -> group.name().equals(h.group())).map(Topology.Host::node).toList();
            hyperNodes.add(hyperNode(group.name(), 1, "leaf", "Node", nodes));
        }
        for (Topology.SpineGroup spines : topology.spineGroups()) {
            List<String> groups = topology.groups().stream().filter(g -> spines.name().equals(g.spineGroup())).map(Topology.Group::name).toList();
            if (!groups.isEmpty()) {
                hyperNodes.add(hyperNode(spines.name(), 2, "spine", "HyperNode", groups));
            }
        }
        return hyperNodes;
    }

    /** Levels from the widest to the host: the spine group (when the fabric has spines), the leaf, the host. */
    public static Map<String, Object> kueueTopology(Topology topology) {
        List<Map<String, Object>> levels = new ArrayList<>();
        if (!topology.spineGroups().isEmpty()) {
            levels.add(Map.of("nodeLabel", SPINE_GROUP_LABEL));
        }
        levels.add(Map.of("nodeLabel", LEAF_LABEL));
        levels.add(Map.of("nodeLabel", HOSTNAME_LABEL));
        return object("kueue.x-k8s.io/v1beta1", "Topology", metadata(KUEUE_TOPOLOGY_NAME, Map.of(MANAGED_BY, "railyard")),
                Map.of("levels", levels));
    }

    private static Map<String, Object> hyperNode(String name, int tier, String tierName, String memberType, List<String> members) {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("tier", tier);
        spec.put("tierName", tierName);
        spec.put("members", members.stream()
                .map(member -> Map.of("type", memberType, "selector", Map.of("exactMatch", Map.of("name", member)))).toList());
        return object("topology.volcano.sh/v1alpha1", "HyperNode", metadata(name, Map.of(MANAGED_BY, "railyard")), spec);
    }

    /** An object as Kubernetes prints it: apiVersion, kind, metadata, then the spec when there is one. */
    public static Map<String, Object> object(String apiVersion, String kind, Map<String, Object> metadata, Map<String, Object> spec) {
        Map<String, Object> object = new LinkedHashMap<>();
        object.put("apiVersion", apiVersion);
        object.put("kind", kind);
        object.put("metadata", metadata);
        if (spec != null) {
            object.put("spec", spec);
        }
        return object;
    }

    public static Map<String, Object> metadata(String name, Map<String, String> labels) {
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("name", name);
        metadata.put("labels", labels);
        return metadata;
    }
}
