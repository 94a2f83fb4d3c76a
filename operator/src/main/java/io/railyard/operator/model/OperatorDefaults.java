package io.railyard.operator.model;

import io.railyard.api.Names;

/**
 * What the operator fills in where a TrainingJob says nothing, set once per installation (the chart's image and
 * {@code rdma.resourceName}): the image of Railyard's helper containers and the RDMA extended resource.
 */
public record OperatorDefaults(String railyardImage, String rdmaResource) {
    public static final String RAILYARD_IMAGE = "ghcr.io/railyard/railyard:0.1.0";
    /** Railyard's own defaults, for a cluster installed without changing them. */
    public static final OperatorDefaults STANDARD = new OperatorDefaults(RAILYARD_IMAGE, Names.DEFAULT_RDMA_RESOURCE);
}
