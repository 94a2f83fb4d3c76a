package io.railyard.operator.model;

import io.railyard.api.DataVolume;
import io.railyard.api.PodResources;
import io.railyard.api.PodTemplateOverrides;
import io.railyard.api.RdmaSpec;
import io.railyard.api.SchedulingSpec;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobSpec;
import java.util.List;
import java.util.Map;

/** A TrainingJob's spec with every default applied: what the builders read. */
record JobSettings(
        String name, String namespace, String uid, TrainingJobSpec spec, RdmaSpec rdma, String rdmaResource, int devicesPerNode,
        boolean gpuDirect, boolean hostNetwork, int masterPort, SchedulingSpec.Scheduler scheduler, List<String> topologyKeys,
        PodResources resources, PodTemplateOverrides podTemplate, boolean inPlace) {

    static final int DEFAULT_MASTER_PORT = 29500;
    private static final int HOST_PORT_BASE = 20000;
    private static final int HOST_PORT_RANGE = 10000;

    static JobSettings of(TrainingJob job, OperatorDefaults defaults) {
        String defaultRdmaResource = defaults.rdmaResource(); // where the job names none
        TrainingJobSpec spec = job.getSpec();
        RdmaSpec rdma = spec.rdma == null ? new RdmaSpec() : spec.rdma;
        SchedulingSpec scheduling = spec.scheduling == null ? new SchedulingSpec() : spec.scheduling;
        String namespace = job.getMetadata().getNamespace() == null ? "default" : job.getMetadata().getNamespace();
        boolean hostNetwork = Boolean.TRUE.equals(rdma.hostNetwork);
        return new JobSettings(
                job.getMetadata().getName(),
                namespace,
                job.getMetadata().getUid() == null ? "" : job.getMetadata().getUid(),
                spec,
                rdma,
                rdma.resource == null ? defaultRdmaResource : rdma.resource,
                rdma.devicesPerNode == null ? 1 : rdma.devicesPerNode,
                rdma.gpuDirect == null || rdma.gpuDirect,
                hostNetwork,
                spec.masterPort != null ? spec.masterPort : hostNetwork ? hostPort(namespace, job.getMetadata().getName()) : DEFAULT_MASTER_PORT,
                scheduling.scheduler == null ? SchedulingSpec.Scheduler.DEFAULT : scheduling.scheduler,
                scheduling.topologyKeys == null ? List.of() : scheduling.topologyKeys,
                spec.resources == null ? new PodResources() : spec.resources,
                spec.podTemplate == null ? new PodTemplateOverrides() : spec.podTemplate,
                RestartStrategies.inPlace(spec, defaults.inPlaceRestart()));
    }

    /** On the host's network two jobs on one node need different ports: one derived from the job, stable across renders. */
    static int hostPort(String namespace, String name) {
        return HOST_PORT_BASE + Math.floorMod((namespace + "/" + name).hashCode(), HOST_PORT_RANGE);
    }

    /**
     * On the host network, the one interface NCCL_SOCKET_IFNAME names (a plain name, not a prefix list or an exclusion):
     * where the job's own servers listen instead of every address of the node.
     */
    java.util.Optional<String> jobInterface() {
        String name = rdma.socketInterface;
        return hostNetwork && name != null && name.matches("[A-Za-z0-9][-A-Za-z0-9_.]{0,14}") ? java.util.Optional.of(name) : java.util.Optional.empty();
    }

    /** The job left the number of RDMA devices a pod gets to the default, one. */
    boolean rdmaDevicesDefaulted() {
        return rdma.devicesPerNode == null;
    }

    /** The NICs come from a ResourceClaim of Railyard's DRA driver, not the extended resource. */
    boolean dra() {
        return rdma.allocation == RdmaSpec.Allocation.DRA;
    }

    /** The GPUs come through the claim too, paired with the NICs. */
    boolean gpusInClaim() {
        return dra() && Boolean.TRUE.equals(rdma.alignWithGpus);
    }

    boolean topologyOrder() {
        return !topologyKeys.isEmpty();
    }

    /** Rank 0's stable DNS name through the headless Service. */
    String masterAddress() {
        return podName(0) + "." + name + "." + namespace + ".svc";
    }

    String podName(int index) {
        return name + "-" + index;
    }

    Map<String, DataVolume> dataVolumes() {
        Map<String, DataVolume> volumes = new java.util.LinkedHashMap<>();
        if (spec.dataset != null) {
            volumes.put("dataset", spec.dataset);
        }
        if (spec.model != null) {
            volumes.put("model", spec.model);
        }
        return volumes;
    }
}
