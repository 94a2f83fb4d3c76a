package io.railyard.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.Status;
import io.railyard.agent.v1beta1.ContainerAllocateResponse;
import io.railyard.agent.v1beta1.DeviceSpec;
import io.railyard.node.CharDevice;
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
    static final String DEVICES_ENV = "RAILYARD_RDMA_DEVICES";
    private static final ObjectMapper JSON = new ObjectMapper();

    private AllocationBuilder() {}

    /**
     * The response for one container.
     *
     * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT for an unknown id, FAILED_PRECONDITION for an unhealthy one
     */
    static ContainerAllocateResponse build(Sysfs sysfs, Map<String, PluginDevice> byId, Map<String, PortHealth> healthByPort, List<String> ids) {
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
        for (Hca hca : hcas) {
            for (CharDevice device : hca.charDevices()) {
                boolean wanted = device.kind() == CharDevice.Kind.UVERBS
                        || (device.kind() == CharDevice.Kind.UMAD && ports.stream().anyMatch(p -> p.hca().equals(hca.name()) && p.number() == device.port()));
                if (wanted && sysfs.exists(sysfs.resolve("dev/infiniband").resolve(device.name()))) {
                    response.addDevices(readWrite(device.hostPath()));
                }
            }
        }
        if (sysfs.exists(sysfs.resolve("dev/infiniband/rdma_cm"))) {
            response.addDevices(readWrite("/dev/infiniband/rdma_cm"));
        }
        List<Port> portList = new ArrayList<>(ports);
        response.putAllEnvs(NcclEnvironment.forPorts(portList));
        response.putEnvs(DEVICES_ENV, describe(portList, hcas));
        return response.build();
    }

    private static DeviceSpec readWrite(String path) {
        return DeviceSpec.newBuilder().setContainerPath(path).setHostPath(path).setPermissions("rw").build();
    }

    /** JSON for programs in the container: each port's HCA, number, link layer, netdev, GID index, NUMA node, PCI address. */
    private static String describe(List<Port> ports, Set<Hca> hcas) {
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
