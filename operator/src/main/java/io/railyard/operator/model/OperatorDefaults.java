package io.railyard.operator.model;

import io.railyard.api.Names;
import java.util.List;

/**
 * What the operator fills in or allows where a TrainingJob says nothing, set once per installation (the chart's image,
 * {@code rdma.resourceName}, {@code operator.allowedHostPaths} and {@code operator.inPlaceRestart}): the image of
 * Railyard's helper containers, the RDMA extended resource, the node directories jobs may mount ({@link HostPaths}),
 * whether the cluster restarts pods in place ({@link RestartStrategies}), and whether each job's channels get a
 * NetworkPolicy ({@link ChannelPolicy}; {@code operator.networkPolicy}, off for a CNI that enforces none), and whether the
 * cluster serves Kubernetes' own gangs ({@link WorkloadGangModel}, read from discovery).
 */
public record OperatorDefaults(String railyardImage, String rdmaResource, List<String> allowedHostPaths, boolean inPlaceRestart,
        boolean networkPolicy, boolean workloadGangs) {
    public static final String RAILYARD_IMAGE = "ghcr.io/railyard/railyard:0.1.0";
    /** Railyard's own defaults, for a cluster installed without changing them. */
    public static final OperatorDefaults STANDARD = new OperatorDefaults(RAILYARD_IMAGE, Names.DEFAULT_RDMA_RESOURCE);

    public OperatorDefaults {
        allowedHostPaths = List.copyOf(allowedHostPaths);
    }

    /** No host paths allowed, the default; a cluster that does not restart pods in place. */
    public OperatorDefaults(String railyardImage, String rdmaResource) {
        this(railyardImage, rdmaResource, List.of(), false, true, false);
    }

    public OperatorDefaults(String railyardImage, String rdmaResource, List<String> allowedHostPaths) {
        this(railyardImage, rdmaResource, allowedHostPaths, false, true, false);
    }

    /** The same installation on a cluster that does, or does not, restart pods in place. */
    public OperatorDefaults withInPlaceRestart(boolean served) {
        return new OperatorDefaults(railyardImage, rdmaResource, allowedHostPaths, served, networkPolicy, workloadGangs);
    }

    /** The same installation with, or without, a NetworkPolicy for each job's channels. */
    public OperatorDefaults withNetworkPolicy(boolean wanted) {
        return new OperatorDefaults(railyardImage, rdmaResource, allowedHostPaths, inPlaceRestart, wanted, workloadGangs);
    }

    /** The same installation on a cluster that does, or does not, serve scheduling.k8s.io's Workload and PodGroup. */
    public OperatorDefaults withWorkloadGangs(boolean served) {
        return new OperatorDefaults(railyardImage, rdmaResource, allowedHostPaths, inPlaceRestart, networkPolicy, served);
    }
}
