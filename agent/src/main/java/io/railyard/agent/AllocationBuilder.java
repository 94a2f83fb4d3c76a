package io.railyard.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.Status;
import io.railyard.agent.v1beta1.ContainerAllocateResponse;
import io.railyard.agent.v1beta1.DeviceSpec;
import io.railyard.node.CharDevice;
import io.railyard.node.Gpu;
import io.railyard.node.Hca;
import io.railyard.node.NcclEnvironment;
import io.railyard.node.Netdev;
import io.railyard.node.PciDevice;
import io.railyard.node.Port;
import io.railyard.node.Sysfs;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Turns the device ids the kubelet allocated into the container's device nodes and NCCL variables. */
final class AllocationBuilder {

    /** Where a resource's NCCL topology file appears in its containers. */
    static final String TOPOLOGY_IN_CONTAINER = "/etc/railyard/nccl-topo.xml";

    private AllocationBuilder() {}

    /**
     * The response for one container.
     *
     * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT for an unknown id, FAILED_PRECONDITION for an unhealthy one
     */
    static ContainerAllocateResponse build(Sysfs sysfs, Map<String, PluginDevice> byId, Map<String, PortHealth> healthByPort, List<String> ids,
            List<Gpu> gpus, ResourceConfig resource, java.util.Optional<java.nio.file.Path> topology) {
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
        ContainerAllocateResponse.Builder response = ContainerAllocateResponse.newBuilder();
        PortAllocation allocation;
        try {
            allocation = PortAllocation.of(sysfs, new ArrayList<>(ports), hcas, gpus, resource);
        } catch (PortAllocation.Refused e) {
            throw Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException();
        }
        allocation.deviceNodes().forEach(path -> response.addDevices(readWrite(path)));
        response.putAllEnvs(allocation.env());
        topology.ifPresent(file -> {
            response.addMounts(io.railyard.agent.v1beta1.Mount.newBuilder().setHostPath(file.toString()).setContainerPath(TOPOLOGY_IN_CONTAINER)
                    .setReadOnly(true));
            response.putEnvs("NCCL_TOPO_FILE", TOPOLOGY_IN_CONTAINER);
        });
        return response.build();
    }

    private static DeviceSpec readWrite(String path) {
        return DeviceSpec.newBuilder().setContainerPath(path).setHostPath(path).setPermissions("rw").build();
    }

}
