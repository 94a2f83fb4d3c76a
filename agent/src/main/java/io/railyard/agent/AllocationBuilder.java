package io.railyard.agent;

import io.grpc.Status;
import io.railyard.agent.v1beta1.ContainerAllocateResponse;
import io.railyard.agent.v1beta1.DeviceSpec;
import io.railyard.node.Gpu;
import io.railyard.node.Hca;
import io.railyard.node.Port;
import io.railyard.node.Sysfs;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns the device ids the kubelet allocated into the container's device nodes, NCCL's and the other libraries'
 * variables and the topology file, for one resource. The variables depend only on the ports, so each set of ports has
 * them computed once; the device nodes are looked for on every call (a node can go away).
 */
final class AllocationBuilder {
    /** Distinct port sets remembered; a node has few, and a bound keeps a misbehaving caller from growing it. */
    private static final int REMEMBERED = 1024;

    private final Sysfs sysfs;
    private final List<Gpu> gpus;
    private final ResourceConfig resource;
    private volatile ContainerExtras extras;
    private final Map<List<String>, Map<String, String>> environments = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * @param gpus the node's GPUs, for each GPU's nearest allocated NIC
     * @param extras the resource's NCCL topology file and tuning on this node
     */
    AllocationBuilder(Sysfs sysfs, List<Gpu> gpus, ResourceConfig resource, ContainerExtras extras) {
        this.sysfs = sysfs;
        this.gpus = List.copyOf(gpus);
        this.resource = resource;
        this.extras = extras;
    }

    /**
     * The response for one container.
     *
     * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT for an unknown id, FAILED_PRECONDITION for an unhealthy one
     *     or one the resource's settings refuse
     */
    ContainerAllocateResponse build(Map<String, PluginDevice> byId, Map<String, PortHealth> healthByPort, List<String> ids) {
        Set<Port> ports = new LinkedHashSet<>();
        Set<Hca> hcas = new LinkedHashSet<>();
        for (String id : ids) {
            PluginDevice device = byId.get(id);
            if (device == null) {
                throw Status.INVALID_ARGUMENT.withDescription("unknown device " + id + ": this plugin advertises "
                        + String.join(", ", byId.keySet())).asRuntimeException();
            }
            PortHealth portHealth = healthByPort.getOrDefault(device.port().id(), PortHealth.OK);
            if (!portHealth.healthy()) {
                throw Status.FAILED_PRECONDITION.withDescription("device " + id + " is unhealthy: " + portHealth.reason())
                        .asRuntimeException();
            }
            ports.add(device.port());
            hcas.add(device.hca());
        }
        List<Port> sorted = ports.stream().sorted(Port.BY_DEVICE).toList();
        ContainerAllocateResponse.Builder response = ContainerAllocateResponse.newBuilder();
        PortAllocation.deviceNodes(sysfs, sorted, hcas, resource).forEach(path -> response.addDevices(readWrite(path)));
        response.putAllEnvs(environment(sorted, hcas));
        PortAllocation.mounts(extras).forEach(mount -> response.addMounts(io.railyard.agent.v1beta1.Mount.newBuilder()
                .setHostPath(mount.hostPath()).setContainerPath(mount.containerPath()).setReadOnly(true)));
        return response.build();
    }

    private Map<String, String> environment(List<Port> ports, Set<Hca> hcas) {
        List<String> key = ports.stream().map(Port::id).toList();
        Map<String, String> known = environments.get(key);
        if (known != null) {
            return known;
        }
        Map<String, String> env;
        try {
            env = Map.copyOf(PortAllocation.environment(ports, hcas, gpus, resource, extras));
        } catch (PortAllocation.Refused e) {
            throw Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException();
        }
        if (environments.size() < REMEMBERED) {
            environments.put(key, env);
        }
        return env;
    }

    /** The node's fabric labels changed: the next allocations are tuned by them. */
    void retune(Map<String, String> nodeLabels) {
        extras = extras.withLabels(nodeLabels);
        environments.clear();
    }

    private static DeviceSpec readWrite(String path) {
        return DeviceSpec.newBuilder().setContainerPath(path).setHostPath(path).setPermissions("rw").build();
    }
}
