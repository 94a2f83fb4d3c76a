package io.railyard.agent;

import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.railyard.agent.v1beta1.AllocateRequest;
import io.railyard.agent.v1beta1.AllocateResponse;
import io.railyard.agent.v1beta1.ContainerAllocateRequest;
import io.railyard.agent.v1beta1.ContainerPreferredAllocationRequest;
import io.railyard.agent.v1beta1.ContainerPreferredAllocationResponse;
import io.railyard.agent.v1beta1.Device;
import io.railyard.agent.v1beta1.DevicePluginGrpc;
import io.railyard.agent.v1beta1.DevicePluginOptions;
import io.railyard.agent.v1beta1.Empty;
import io.railyard.agent.v1beta1.ListAndWatchResponse;
import io.railyard.agent.v1beta1.NUMANode;
import io.railyard.agent.v1beta1.PreStartContainerRequest;
import io.railyard.agent.v1beta1.PreStartContainerResponse;
import io.railyard.agent.v1beta1.PreferredAllocationRequest;
import io.railyard.agent.v1beta1.PreferredAllocationResponse;
import io.railyard.agent.v1beta1.TopologyInfo;
import io.railyard.node.Gpu;
import io.railyard.node.Sysfs;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The device plugin service of one resource: its devices and their health, streamed to the kubelet on change. */
final class RdmaDevicePlugin extends DevicePluginGrpc.DevicePluginImplBase {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaDevicePlugin.class);

    private final ResourceConfig resource;
    private final Sysfs sysfs;
    private final AllocationBuilder builder;
    /** Replaced whole, never changed in place: Allocate and the health poll read it without a lock. */
    private volatile Map<String, PluginDevice> byId;
    private final Set<ServerCallStreamObserver<ListAndWatchResponse>> watchers = ConcurrentHashMap.newKeySet();
    private volatile Map<String, PortHealth> healthByPort = Map.of();
    private final Map<String, LongAdder> allocations = new ConcurrentHashMap<>();
    private final LongAdder refusedAllocations = new LongAdder();
    private ListAndWatchResponse current;

    /** The node's fabric labels changed (railyard fabric --apply): allocations from now on are tuned by them. */
    void retune(Map<String, String> nodeLabels) {
        builder.retune(nodeLabels);
    }

    /** @param extras the resource's NCCL topology file and tuning on this node */
    RdmaDevicePlugin(ResourceConfig resource, Sysfs sysfs, List<PluginDevice> devices, List<Gpu> gpus, ContainerExtras extras) {
        this.resource = resource;
        this.sysfs = sysfs;
        this.builder = new AllocationBuilder(sysfs, gpus, resource, extras);
        Map<String, PluginDevice> initial = new LinkedHashMap<>();
        devices.forEach(device -> initial.put(device.id(), device));
        byId = Collections.unmodifiableMap(initial);
        refreshHealth();
    }

    /** Advertises more devices (an HCA that appeared); those already advertised, and their allocations, stay as they are. */
    synchronized void add(List<PluginDevice> devices) {
        Map<String, PluginDevice> more = new LinkedHashMap<>(byId);
        devices.forEach(device -> more.putIfAbsent(device.id(), device));
        byId = Collections.unmodifiableMap(more);
        refreshHealth();
    }

    /** The ports this plugin advertises devices of. */
    Set<String> portIds() {
        Set<String> ports = new HashSet<>();
        byId.values().forEach(device -> ports.add(device.port().id()));
        return ports;
    }

    ResourceConfig resource() {
        return resource;
    }

    /** Each device and whether it is healthy now, in advertising order. */
    /** Each port's health as the last poll read it, by port id. */
    Map<String, PortHealth> portHealth() {
        return healthByPort;
    }

    Map<String, Boolean> deviceHealth() {
        Map<String, PortHealth> ports = healthByPort;
        Map<String, Boolean> health = new LinkedHashMap<>();
        byId.values().forEach(d -> health.put(d.id(), ports.getOrDefault(d.port().id(), PortHealth.OK).healthy()));
        return health;
    }

    /** Devices handed to containers by Allocate, counted per device id. */
    Map<String, Long> allocationCounts() {
        Map<String, Long> counts = new LinkedHashMap<>();
        allocations.forEach((id, count) -> counts.put(id, count.sum()));
        return counts;
    }

    long refusedAllocations() {
        return refusedAllocations.sum();
    }

    int watcherCount() {
        return watchers.size();
    }

    /** Reads every port's health; when anything changed, sends the new list to every watcher. Returns whether it changed. */
    synchronized boolean refreshHealth() {
        Map<String, PortHealth> ports = new LinkedHashMap<>();
        byId.values().forEach(device -> ports.computeIfAbsent(device.port().id(), id -> PortHealth.of(sysfs, device)));
        ports.forEach((port, now) -> {
            PortHealth before = healthByPort.get(port);
            if (!now.healthy() && (before == null || before.healthy())) {
                LOG.warn("{} {} unhealthy: {}", resource.name(), port, now.reason());
            } else if (now.healthy() && before != null && !before.healthy()) {
                LOG.info("{} {} healthy again", resource.name(), port);
            }
        });
        if (!ports.equals(healthByPort)) { // the same map while nothing changes: node health skips a poll that changed nothing
            healthByPort = Map.copyOf(ports);
        }
        ListAndWatchResponse response = listFor(ports);
        if (response.equals(current)) {
            return false;
        }
        current = response;
        watchers.forEach(this::send);
        return true;
    }

    @Override
    public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> observer) {
        observer.onNext(DevicePluginOptions.newBuilder().setGetPreferredAllocationAvailable(true).build());
        observer.onCompleted();
    }

    @Override
    public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> observer) {
        ServerCallStreamObserver<ListAndWatchResponse> stream = (ServerCallStreamObserver<ListAndWatchResponse>) observer;
        stream.setOnCancelHandler(() -> watchers.remove(stream));
        synchronized (this) {
            watchers.add(stream);
            send(stream);
        }
    }

    @Override
    public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> observer) {
        AllocateResponse.Builder response = AllocateResponse.newBuilder();
        try {
            for (ContainerAllocateRequest container : request.getContainerRequestsList()) {
                response.addContainerResponses(builder.build(byId, healthByPort, container.getDevicesIdsList()));
            }
            request.getContainerRequestsList().forEach(container -> container.getDevicesIdsList()
                    .forEach(id -> allocations.computeIfAbsent(id, k -> new LongAdder()).increment()));
        } catch (StatusRuntimeException e) {
            refusedAllocations.increment();
            LOG.warn("{} allocate refused: {}", resource.name(), e.getStatus().getDescription());
            observer.onError(e);
            return;
        }
        observer.onNext(response.build());
        observer.onCompleted();
    }

    @Override
    public void getPreferredAllocation(PreferredAllocationRequest request, StreamObserver<PreferredAllocationResponse> observer) {
        PreferredAllocationResponse.Builder response = PreferredAllocationResponse.newBuilder();
        for (ContainerPreferredAllocationRequest container : request.getContainerRequestsList()) {
            List<String> chosen = PreferredAllocation.choose(byId, container.getAvailableDeviceIDsList(),
                    container.getMustIncludeDeviceIDsList(), container.getAllocationSize());
            response.addContainerResponses(ContainerPreferredAllocationResponse.newBuilder().addAllDeviceIDs(chosen));
        }
        observer.onNext(response.build());
        observer.onCompleted();
    }

    @Override
    public void preStartContainer(PreStartContainerRequest request, StreamObserver<PreStartContainerResponse> observer) {
        observer.onNext(PreStartContainerResponse.getDefaultInstance());
        observer.onCompleted();
    }

    /** Ends every ListAndWatch stream, so the kubelet sees the plugin go away. */
    synchronized void closeStreams() {
        watchers.forEach(stream -> {
            if (!stream.isCancelled()) {
                stream.onCompleted();
            }
        });
        watchers.clear();
    }

    private void send(ServerCallStreamObserver<ListAndWatchResponse> stream) {
        if (stream.isCancelled()) {
            watchers.remove(stream);
            return;
        }
        stream.onNext(current);
    }

    private ListAndWatchResponse listFor(Map<String, PortHealth> ports) {
        ListAndWatchResponse.Builder list = ListAndWatchResponse.newBuilder();
        for (PluginDevice device : byId.values()) {
            Device.Builder entry = Device.newBuilder()
                    .setID(device.id())
                    .setHealth(ports.get(device.port().id()).healthy() ? "Healthy" : "Unhealthy");
            if (device.numaNode() >= 0) {
                entry.setTopology(TopologyInfo.newBuilder().addNodes(NUMANode.newBuilder().setID(device.numaNode())));
            }
            list.addDevices(entry);
        }
        return list.build();
    }
}
