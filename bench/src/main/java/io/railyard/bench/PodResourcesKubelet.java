package io.railyard.bench;

import io.grpc.stub.StreamObserver;
import io.railyard.agent.PluginServer;
import io.railyard.agent.podresources.v1.ContainerDevices;
import io.railyard.agent.podresources.v1.ContainerResources;
import io.railyard.agent.podresources.v1.ListPodResourcesRequest;
import io.railyard.agent.podresources.v1.ListPodResourcesResponse;
import io.railyard.agent.podresources.v1.PodResources;
import io.railyard.agent.podresources.v1.PodResourcesListerGrpc;
import io.railyard.node.NodeDiscovery;
import io.railyard.node.Port;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A kubelet serving PodResources List on a unix socket for the attribution benchmark: the node's ports shared out
 * among PODS pods of one container each, every pod with a GPU too, as a training node lists them.
 *   PodResourcesKubelet SOCKET ROOT PODS
 */
public final class PodResourcesKubelet extends PodResourcesListerGrpc.PodResourcesListerImplBase {
    private final ListPodResourcesResponse listing;

    private PodResourcesKubelet(ListPodResourcesResponse listing) {
        this.listing = listing;
    }

    public static void main(String[] args) throws InterruptedException {
        List<Port> ports = NodeDiscovery.discover(Path.of(args[1])).hcas().stream().flatMap(hca -> hca.ports().stream()).toList();
        int pods = Integer.parseInt(args[2]);
        ListPodResourcesResponse.Builder listing = ListPodResourcesResponse.newBuilder();
        for (int pod = 0; pod < pods; pod++) {
            ContainerDevices.Builder rdma = ContainerDevices.newBuilder().setResourceName("rdma/rdma");
            for (int i = pod; i < ports.size(); i += pods) {
                rdma.addDeviceIds(ports.get(i).id());
            }
            listing.addPodResources(PodResources.newBuilder().setNamespace("ml").setName("llama-worker-" + pod)
                    .addContainers(ContainerResources.newBuilder().setName("trainer").addDevices(rdma)
                            .addDevices(ContainerDevices.newBuilder().setResourceName("nvidia.com/gpu").addDeviceIds("GPU-" + pod))));
        }
        try (PluginServer server = PluginServer.start(Path.of(args[0]), new PodResourcesKubelet(listing.build()))) {
            System.out.println("serving " + pods + " pods holding " + ports.size() + " ports");
            new CountDownLatch(1).await();
        }
    }

    @Override
    public void list(ListPodResourcesRequest request, StreamObserver<ListPodResourcesResponse> response) {
        response.onNext(listing);
        response.onCompleted();
    }
}
