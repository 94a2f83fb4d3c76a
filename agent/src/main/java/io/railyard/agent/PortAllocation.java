package io.railyard.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.railyard.node.CharDevice;
import io.railyard.node.Gpu;
import io.railyard.node.Hca;
import io.railyard.node.NcclEnvironment;
import io.railyard.node.Netdev;
import io.railyard.node.PciDevice;
import io.railyard.node.Port;
import io.railyard.node.Sysfs;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a container needs to use a set of ports, for the device plugin's Allocate and the DRA driver's CDI specs alike:
 * the uverbs nodes of their HCAs, rdma_cm, and the variables that make NCCL, UCX and NVSHMEM use exactly those ports
 * the way the host is set up ({@link LibraryEnvironment}), with a JSON description of the ports. NCCL, perftest and
 * torch need no other device; the ports' umad nodes (raw management datagrams: what infiniband-diags and an SM
 * speak) only where the resource asks for them.
 *
 * @param deviceNodes paths under /dev, the same in the container as on the host
 * @param mounts files bound read-only into the container: the resource's NCCL topology file
 */
public record PortAllocation(List<String> deviceNodes, Map<String, String> env, List<Mount> mounts) {
    public static final String DEVICES_ENV = "RAILYARD_RDMA_DEVICES";
    /** Where a resource's NCCL topology file appears in its containers. */
    public static final String TOPOLOGY_IN_CONTAINER = "/etc/railyard/nccl-topo.xml";

    /** A host file bound read-only into the container. */
    public record Mount(String hostPath, String containerPath) {}
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A set of ports the resource cannot give a container (a port without the resource's partition key). */
    public static final class Refused extends IllegalArgumentException {
        Refused(String reason) {
            super(reason);
        }
    }

    /**
     * Only device nodes that exist on the host: a missing node must not fail the container's start. The ports are
     * described in device order, whatever order the kubelet asked for them in (its device IDs are a set), so that two
     * nodes list the same rails in the same places.
     *
     * @param gpus the node's GPUs, for RAILYARD_GPU_NICS
     * @param extras the resource's NCCL topology file and tuning on this node
     * @throws Refused when the resource's settings cannot be met on these ports
     */
    public static PortAllocation of(Sysfs sysfs, List<Port> requested, Collection<Hca> hcas, List<Gpu> gpus, ResourceConfig resource,
            ContainerExtras extras) {
        List<Port> ports = requested.stream().sorted(Port.BY_DEVICE).toList();
        return new PortAllocation(deviceNodes(sysfs, ports, hcas, resource), environment(ports, hcas, gpus, resource, extras), mounts(extras));
    }

    static List<Mount> mounts(ContainerExtras extras) {
        return extras.topology().map(file -> List.of(new Mount(file.toString(), TOPOLOGY_IN_CONTAINER))).orElse(List.of());
    }

    /** The HCAs' uverbs nodes and rdma_cm that exist on the host; the ports' umad only for a resource that asks for it. */
    static List<String> deviceNodes(Sysfs sysfs, List<Port> ports, Collection<Hca> hcas, ResourceConfig resource) {
        List<String> nodes = new ArrayList<>();
        for (Hca hca : hcas) {
            for (CharDevice device : hca.charDevices()) {
                boolean wanted = device.kind() == CharDevice.Kind.UVERBS || (resource.managementDatagrams() && device.kind() == CharDevice.Kind.UMAD
                        && ports.stream().anyMatch(p -> p.hca().equals(hca.name()) && p.number() == device.port()));
                if (wanted && sysfs.exists(sysfs.resolve("dev/infiniband").resolve(device.name()))) {
                    nodes.add(device.hostPath());
                }
            }
        }
        if (sysfs.exists(sysfs.resolve("dev/infiniband/rdma_cm"))) {
            nodes.add("/dev/infiniband/rdma_cm");
        }
        return List.copyOf(nodes);
    }

    /**
     * The variables for the ports, in device order: a function of the ports and the node alone.
     *
     * @throws Refused when the resource's settings cannot be met on these ports
     */
    static Map<String, String> environment(List<Port> ports, Collection<Hca> hcas, List<Gpu> gpus, ResourceConfig resource,
            ContainerExtras extras) {
        Map<String, String> env = new LinkedHashMap<>(NcclEnvironment.forPorts(ports));
        env.putAll(LibraryEnvironment.of(ports, hcas, gpus, resource));
        env.putAll(extras.tuning(ports, resource).environment());
        extras.topology().ifPresent(file -> env.put("NCCL_TOPO_FILE", TOPOLOGY_IN_CONTAINER));
        env.put(DEVICES_ENV, describe(ports, hcas));
        return env;
    }

    /** JSON for programs in the container: each port's HCA, number, link layer, netdev, GID index, NUMA node, PCI address. */
    private static String describe(List<Port> ports, Collection<Hca> hcas) {
        List<Map<String, Object>> entries = new ArrayList<>();
        for (Port port : ports) {
            Hca hca = hcas.stream().filter(h -> h.name().equals(port.hca())).findFirst().orElseThrow();
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("hca", port.hca());
            entry.put("port", port.number());
            entry.put("linkLayer", port.linkLayer().map(Object::toString).orElse(null));
            entry.put("netdev", port.netdev().map(Netdev::name).orElse(null));
            entry.put("gidIndex", port.ncclGidIndex().isPresent() ? port.ncclGidIndex().getAsInt() : null);
            entry.put("numaNode", hca.numaNodeOrNone());
            entry.put("pciAddress", hca.pci().map(PciDevice::address).orElse(null));
            entries.add(entry);
        }
        try {
            return JSON.writeValueAsString(entries);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
