package io.railyard.agent;

import io.railyard.node.Gpu;
import io.railyard.node.Hca;
import io.railyard.node.NcclEnvironment;
import io.railyard.node.PKey;
import io.railyard.node.PathClass;
import io.railyard.node.Port;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/**
 * The variables beside NCCL_IB_HCA and the GID index that make a job use its ports the way the host is set up: the
 * host's RoCE traffic class (a lossless priority is chosen by it), the resource's service level and partition, the
 * same ports for UCX and NVSHMEM, and each GPU's nearest allocated NIC for frameworks that pick a NIC per local rank.
 */
final class LibraryEnvironment {
    static final String GPU_NICS = "RAILYARD_GPU_NICS";

    private LibraryEnvironment() {}

    /** @param ports in device order */
    static Map<String, String> of(List<Port> ports, Collection<Hca> hcas, List<Gpu> gpus, ResourceConfig resource) {
        Map<String, String> env = new LinkedHashMap<>();
        if (ports.isEmpty()) {
            return env;
        }
        ResourceConfig.Environment wanted = resource.environment();
        String list = ports.stream().map(Port::id).collect(Collectors.joining(","));
        OptionalInt gidIndex = NcclEnvironment.commonGidIndex(ports);
        if (wanted.trafficClass()) {
            commonTrafficClass(ports).ifPresent(tc -> put(env, wanted, "NCCL_IB_TC", "UCX_IB_TRAFFIC_CLASS", "NVSHMEM_IB_TRAFFIC_CLASS", String.valueOf(tc)));
        }
        if (resource.serviceLevel() != null && ports.stream().anyMatch(Port::isInfiniBand)) {
            put(env, wanted, "NCCL_IB_SL", "UCX_IB_SL", "NVSHMEM_IB_SL", String.valueOf(resource.serviceLevel()));
        }
        if (resource.pkey() != null) {
            int index = pkeyIndex(ports, resource.pkey());
            env.put("NCCL_IB_PKEY", String.valueOf(index));
            if (wanted.ucx()) {
                env.put("UCX_IB_PKEY", String.format("0x%04x", resource.pkey() & 0x7fff)); // UCX takes the partition, not an index
            }
            if (wanted.nvshmem()) {
                env.put("NVSHMEM_IB_PKEY_INDEX", String.valueOf(index));
            }
        }
        if (wanted.ucx()) {
            env.put("UCX_NET_DEVICES", list);
            gidIndex.ifPresent(gid -> env.put("UCX_IB_GID_INDEX", String.valueOf(gid)));
        }
        if (wanted.nvshmem()) {
            env.put("NVSHMEM_HCA_LIST", list);
            env.put("NVSHMEM_ENABLE_NIC_PE_MAPPING", "1"); // without it NVSHMEM ignores the list
            gidIndex.ifPresent(gid -> env.put("NVSHMEM_IB_GID_INDEX", String.valueOf(gid)));
        }
        if (wanted.gpuNics()) {
            gpuNics(ports, hcas, gpus).ifPresent(map -> env.put(GPU_NICS, map));
        }
        return env;
    }

    private static void put(Map<String, String> env, ResourceConfig.Environment wanted, String nccl, String ucx, String nvshmem, String value) {
        env.put(nccl, value);
        if (wanted.ucx()) {
            env.put(ucx, value);
        }
        if (wanted.nvshmem()) {
            env.put(nvshmem, value);
        }
    }

    /** The traffic class every RoCE port of the allocation has; none when one has none or they disagree. */
    static OptionalInt commonTrafficClass(List<Port> ports) {
        List<Port> roce = ports.stream().filter(Port::isRoce).toList();
        if (roce.isEmpty() || !roce.stream().allMatch(port -> port.trafficClass().isKnown())) {
            return OptionalInt.empty();
        }
        List<Integer> classes = roce.stream().map(port -> port.trafficClass().orElseThrow()).distinct().toList();
        return classes.size() == 1 ? OptionalInt.of(classes.getFirst()) : OptionalInt.empty();
    }

    /** The one index of the key's partition in every port's table, as NCCL_IB_PKEY wants it; else why not. */
    private static int pkeyIndex(List<Port> ports, int key) {
        String hex = String.format("0x%04x", key);
        Map<String, Integer> indexes = new LinkedHashMap<>();
        for (Port port : ports) {
            Optional<PKey> found = PKey.find(port.pkeys(), key);
            if (found.isEmpty()) {
                throw new PortAllocation.Refused(port.hca() + " port " + port.number() + " has no P_Key " + hex + " (its table: "
                        + (port.pkeys().isEmpty() ? "empty" : port.pkeys().stream().map(PKey::hex).collect(Collectors.joining(", ")))
                        + "): add the port to the partition in the subnet manager's partitions.conf, or leave pkey out of the resource");
            }
            indexes.put(port.id(), found.get().index());
        }
        if (indexes.values().stream().distinct().count() > 1) {
            throw new PortAllocation.Refused("the ports hold P_Key " + hex + " at different indexes (" + indexes.entrySet().stream()
                    .map(e -> e.getKey() + " at " + e.getValue()).collect(Collectors.joining(", "))
                    + "), and NCCL_IB_PKEY is one index for all of them: give the ports the same table order");
        }
        return indexes.values().iterator().next();
    }

    /**
     * {@code 0=mlx5_1:1,1=mlx5_1:1,...}: for each of the node's GPUs, in PCI address order (the order CUDA numbers them
     * with CUDA_DEVICE_ORDER=PCI_BUS_ID, and nvidia-smi's), the nearest of the allocated ports, the first in device
     * order on a tie.
     */
    static Optional<String> gpuNics(List<Port> ports, Collection<Hca> hcas, List<Gpu> gpus) {
        Map<String, Hca> byName = new LinkedHashMap<>();
        hcas.forEach(hca -> byName.put(hca.name(), hca));
        List<Port> located = ports.stream().filter(port -> byName.containsKey(port.hca()) && byName.get(port.hca()).pci().isKnown()).toList();
        if (located.isEmpty() || gpus.isEmpty()) {
            return Optional.empty();
        }
        List<String> entries = new ArrayList<>();
        List<Gpu> ordered = gpus.stream().sorted(Comparator.comparing(Gpu::address)).toList();
        for (int index = 0; index < ordered.size(); index++) {
            Gpu gpu = ordered.get(index);
            Port nearest = located.stream()
                    .min(Comparator.comparing((Port port) -> PathClass.between(gpu.pci(), byName.get(port.hca()).pci().orElseThrow())))
                    .orElseThrow();
            entries.add(index + "=" + nearest.id());
        }
        return Optional.of(String.join(",", entries));
    }
}
