package io.railyard.diagnose;

import io.railyard.node.NodeInventory;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Everything the checks look at: the node snapshot, the environment's variables, the directories of {@code PATH},
 * the extended resource name the device plugin advertises, and the cluster's view when credentials were found.
 */
public record DoctorInput(
        NodeInventory node,
        Map<String, String> environment,
        List<Path> searchPath,
        String rdmaResource,
        ClusterAccess cluster) {

    public DoctorInput {
        environment = Map.copyOf(environment);
        searchPath = List.copyOf(searchPath);
    }
}
