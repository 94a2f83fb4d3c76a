package io.railyard.agent.podresources;

import io.grpc.stub.StreamObserver;
import io.railyard.agent.PluginServer;
import io.railyard.agent.podresources.v1.ContainerDevices;
import io.railyard.agent.podresources.v1.ContainerResources;
import io.railyard.agent.podresources.v1.ListPodResourcesRequest;
import io.railyard.agent.podresources.v1.ListPodResourcesResponse;
import io.railyard.agent.podresources.v1.PodResources;
import io.railyard.agent.podresources.v1.PodResourcesListerGrpc;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/** The kubelet's side of the PodResources API over a real unix socket: it lists what it was told to. */
public final class FakePodResources extends PodResourcesListerGrpc.PodResourcesListerImplBase implements AutoCloseable {
    private final PluginServer server;
    private final AtomicInteger calls = new AtomicInteger();
    private volatile ListPodResourcesResponse listing = ListPodResourcesResponse.getDefaultInstance();
    private volatile io.grpc.Status refusal;

    private FakePodResources(Path socket) {
        this.server = PluginServer.start(socket, this);
    }

    public static FakePodResources serve(Path socket) {
        return new FakePodResources(socket);
    }

    public static ContainerResources container(String name, String resource, String... deviceIds) {
        return ContainerResources.newBuilder().setName(name)
                .addDevices(ContainerDevices.newBuilder().setResourceName(resource).addAllDeviceIds(java.util.List.of(deviceIds))).build();
    }

    public static PodResources pod(String namespace, String name, ContainerResources... containers) {
        return PodResources.newBuilder().setNamespace(namespace).setName(name).addAllContainers(java.util.List.of(containers)).build();
    }

    public void list(PodResources... pods) {
        listing = ListPodResourcesResponse.newBuilder().addAllPodResources(java.util.List.of(pods)).build();
    }

    /** From now on every List is answered with this error, as a kubelet that refuses. */
    public void refuse(io.grpc.Status status) {
        refusal = status;
    }

    int calls() {
        return calls.get();
    }

    @Override
    public void list(ListPodResourcesRequest request, StreamObserver<ListPodResourcesResponse> response) {
        calls.incrementAndGet();
        if (refusal != null) {
            response.onError(refusal.asRuntimeException());
            return;
        }
        response.onNext(listing);
        response.onCompleted();
    }

    @Override
    public void close() {
        server.close();
    }
}
