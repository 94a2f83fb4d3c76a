package io.railyard.diagnose;

import java.util.List;
import java.util.Map;

/**
 * What the Kubernetes API says about this node: its allocatable resources and the RDMA device plugin pods on it.
 *
 * @param nodeFound false when the API has no Node of this name
 */
public record ClusterView(String nodeName, boolean nodeFound, Map<String, String> allocatable, List<PluginPod> pluginPods) {

    public ClusterView {
        allocatable = Map.copyOf(allocatable);
        pluginPods = List.copyOf(pluginPods);
    }

    /** A device plugin pod on the node, with its phase and whether all its containers are ready. */
    public record PluginPod(String namespace, String name, String phase, boolean ready) {}
}
