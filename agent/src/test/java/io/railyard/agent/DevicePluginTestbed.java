package io.railyard.agent;

import io.grpc.ManagedChannel;
import io.railyard.agent.v1beta1.AllocateRequest;
import io.railyard.agent.v1beta1.ContainerAllocateRequest;
import io.railyard.agent.v1beta1.DevicePluginGrpc;
import io.railyard.node.NodeDiscovery;
import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** The agent on the RoCE example node, registered with a fake kubelet, for tests outside this package. */
public final class DevicePluginTestbed implements AutoCloseable {
    private final HostTree tree;
    private final FakeKubelet kubelet;
    private final DevicePluginAgent agent;
    private final ManagedChannel channel;

    private DevicePluginTestbed(HostTree tree, FakeKubelet kubelet, DevicePluginAgent agent) {
        this.tree = tree;
        this.kubelet = kubelet;
        this.agent = agent;
        this.channel = kubelet.dial("railyard-rdma-rdma.sock");
    }

    public static DevicePluginTestbed start(Path dir) {
        try {
            HostTree tree = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("host"));
            Path plugins = Files.createDirectories(dir.resolve("device-plugins"));
            FakeKubelet kubelet = FakeKubelet.start(plugins);
            DevicePluginAgent agent = DevicePluginAgent.create(NodeDiscovery.discover(tree.root()), tree.root(), plugins,
                    AgentConfig.defaults(), Duration.ofMillis(100));
            agent.start();
            return new DevicePluginTestbed(tree, kubelet, agent);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path root() {
        return tree.root();
    }

    public DevicePluginAgent agent() {
        return agent;
    }

    public void allocate(String... ids) {
        DevicePluginGrpc.newBlockingStub(channel).allocate(AllocateRequest.newBuilder()
                .addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(List.of(ids))).build());
    }

    @Override
    public void close() {
        channel.shutdownNow();
        agent.close();
        kubelet.close();
    }
}
