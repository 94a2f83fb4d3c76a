package io.railyard.operator.model;

import io.railyard.api.Names;
import java.util.List;

/**
 * What the operator fills in or allows where a TrainingJob says nothing, set once per installation (the chart's image,
 * {@code rdma.resourceName} and {@code operator.allowedHostPaths}): the image of Railyard's helper containers, the
 * RDMA extended resource, and the node directories jobs may mount ({@link HostPaths}).
 */
public record OperatorDefaults(String railyardImage, String rdmaResource, List<String> allowedHostPaths) {
    public static final String RAILYARD_IMAGE = "ghcr.io/railyard/railyard:0.1.0";
    /** Railyard's own defaults, for a cluster installed without changing them. */
    public static final OperatorDefaults STANDARD = new OperatorDefaults(RAILYARD_IMAGE, Names.DEFAULT_RDMA_RESOURCE);

    public OperatorDefaults {
        allowedHostPaths = List.copyOf(allowedHostPaths);
    }

    /** No host paths allowed, the default. */
    public OperatorDefaults(String railyardImage, String rdmaResource) {
        this(railyardImage, rdmaResource, List.of());
    }
}
