package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The trainer's variables: torchrun's static rendezvous ({@code PET_*}) and NCCL's settings. {@code NCCL_IB_HCA}
 * and the GID index are not here: the device plugin sets them for the devices it allocates.
 */
final class TrainerEnvironment {
    /** GPUDirect RDMA up to the host bridge: the GPUs and NICs of one socket; NCCL's own default stops at PXB. */
    static final String GDR_LEVEL = "PHB";

    private TrainerEnvironment() {}

    /** @param index the pod's node rank; null when the rank and master come from the rank file (topology order, spares) */
    static List<EnvVar> of(JobSettings settings, Integer index) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PET_NNODES", String.valueOf(settings.spec().nodes));
        env.put("PET_NPROC_PER_NODE", String.valueOf(settings.spec().gpusPerNode));
        env.put("PET_MASTER_PORT", String.valueOf(settings.masterPort()));
        if (index != null) {
            // else the rank and the master come from the rank file, once the gang is placed or the spare promoted
            env.put("PET_MASTER_ADDR", settings.masterAddress());
            env.put("PET_NODE_RANK", String.valueOf(index));
        }
        env.put("NCCL_IB_DISABLE", "0");
        env.put("NCCL_DEBUG", "INFO");
        env.put("NCCL_DEBUG_SUBSYS", "INIT,NET");
        if (settings.gpuDirect()) {
            env.put("NCCL_NET_GDR_LEVEL", GDR_LEVEL);
        }
        if (settings.rdma().socketInterface != null) {
            env.put("NCCL_SOCKET_IFNAME", settings.rdma().socketInterface);
        }
        if (settings.hostNetwork() && HangWatch.enabled(settings.spec())) {
            // jobs on one node's network would share RAS's default port and answer for each other
            env.put("NCCL_RAS_ADDR", HangWatch.rasAddress(settings));
        }
        if (InspectorSidecar.enabled(settings.spec())) {
            env.putAll(InspectorSidecar.trainerEnv(settings));
        }
        if (settings.rdma().env != null) {
            env.putAll(settings.rdma().env);
        }
        List<EnvVar> vars = new ArrayList<>();
        env.forEach((name, value) -> vars.add(new EnvVar(name, value, null)));
        if (settings.podTemplate().env != null) {
            vars.addAll(settings.podTemplate().env);
        }
        return vars;
    }
}
