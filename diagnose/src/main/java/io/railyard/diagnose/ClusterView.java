package io.railyard.diagnose;

import io.railyard.node.NcclTuning;
import java.util.List;
import java.util.Map;

/**
 * What the Kubernetes API says about this node: its allocatable resources, the RDMA device plugin pods on it, and
 * the RDMA conditions its agent reports that are True.
 *
 * @param nodeFound false when the API has no Node of this name
 * @param rdmaProblems the agent's conditions that are True, as {@code RdmaPortDown: mlx5_3 port 1: DOWN/Polling since …}
 * @param fabric the fabric's shape and tiers as the node's {@code railyard.io/fabric.*} labels give them
 */
public record ClusterView(String nodeName, boolean nodeFound, Map<String, String> allocatable, List<PluginPod> pluginPods,
        List<String> rdmaProblems, NcclTuning.Fabric fabric) {

    /** A view of a node without fabric labels. */
    public ClusterView(String nodeName, boolean nodeFound, Map<String, String> allocatable, List<PluginPod> pluginPods, List<String> rdmaProblems) {
        this(nodeName, nodeFound, allocatable, pluginPods, rdmaProblems, NcclTuning.Fabric.UNKNOWN);
    }

    public ClusterView {
        allocatable = Map.copyOf(allocatable);
        pluginPods = List.copyOf(pluginPods);
        rdmaProblems = List.copyOf(rdmaProblems);
    }

    /** A device plugin pod on the node, with its phase and whether all its containers are ready. */
    public record PluginPod(String namespace, String name, String phase, boolean ready) {}
}
