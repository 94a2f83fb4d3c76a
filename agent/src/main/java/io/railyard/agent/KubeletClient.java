package io.railyard.agent;

import io.grpc.ManagedChannel;
import io.railyard.agent.v1beta1.DevicePluginOptions;
import io.railyard.agent.v1beta1.RegisterRequest;
import io.railyard.agent.v1beta1.RegistrationGrpc;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Registers a device plugin with the kubelet through {@code kubelet.sock}. */
final class KubeletClient {
    static final String API_VERSION = "v1beta1";
    static final String KUBELET_SOCKET = "kubelet.sock";

    private KubeletClient() {}

    static void register(Path pluginDir, ResourceConfig resource) {
        ManagedChannel channel = PluginServer.dial(pluginDir.resolve(KUBELET_SOCKET));
        try {
            RegistrationGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS).register(RegisterRequest.newBuilder()
                    .setVersion(API_VERSION)
                    .setEndpoint(resource.socketName())
                    .setResourceName(resource.name())
                    .setOptions(DevicePluginOptions.newBuilder().setGetPreferredAllocationAvailable(true))
                    .build());
        } finally {
            channel.shutdownNow();
        }
    }
}
