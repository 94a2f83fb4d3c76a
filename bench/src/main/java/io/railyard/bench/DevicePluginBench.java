package io.railyard.bench;

import io.railyard.agent.PluginServer;
import io.railyard.agent.FakeKubelet;
import io.railyard.agent.DevicePluginAgent;
import io.railyard.agent.AgentConfig;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import io.railyard.agent.v1beta1.AllocateRequest;
import io.railyard.agent.v1beta1.ContainerAllocateRequest;
import io.railyard.agent.v1beta1.DevicePluginGrpc;
import io.railyard.agent.v1beta1.Empty;
import io.railyard.agent.v1beta1.ListAndWatchResponse;
import io.railyard.node.NodeDiscovery;
import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The device plugin against the fake kubelet over real unix sockets: Allocate latency, time from a port state change
 * in sysfs to the ListAndWatch update, and time from kubelet.sock re-creation to the new registration.
 * Arguments: [allocate calls] [health rounds] [restart rounds] [poll interval ms].
 */
public final class DevicePluginBench {
    private DevicePluginBench() {}

    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int healthRounds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        int restarts = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        int pollMillis = args.length > 3 ? Integer.parseInt(args[3]) : 500;
        Path dir = Files.createTempDirectory("railyard-bench");
        HostTree tree = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("host"));
        Path plugins = Files.createDirectories(dir.resolve("device-plugins"));
        FakeKubelet kubelet = FakeKubelet.start(plugins);
        DevicePluginAgent agent = DevicePluginAgent.create(NodeDiscovery.discover(tree.root()), tree.root(), plugins,
                AgentConfig.defaults(), Duration.ofMillis(pollMillis));
        agent.start();
        while (kubelet.registrations().isEmpty()) {
            Thread.sleep(10);
        }
        ManagedChannel channel = kubelet.dial(kubelet.registrations().getFirst().getEndpoint());
        try {
            allocate(DevicePluginGrpc.newBlockingStub(channel), calls);
            health(channel, tree, healthRounds, pollMillis);
            reregister(kubelet, restarts);
        } finally {
            channel.shutdownNow();
            agent.close();
            kubelet.close();
        }
    }

    private static void allocate(DevicePluginGrpc.DevicePluginBlockingStub plugin, int calls) {
        AllocateRequest request = AllocateRequest.newBuilder()
                .addContainerRequests(ContainerAllocateRequest.newBuilder().addDevicesIds("mlx5_1:1").addDevicesIds("mlx5_2:1"))
                .build();
        for (int i = 0; i < Math.max(2_000, calls / 10); i++) {
            plugin.allocate(request);
        }
        long[] nanos = new long[calls];
        for (int i = 0; i < calls; i++) {
            long start = System.nanoTime();
            plugin.allocate(request);
            nanos[i] = System.nanoTime() - start;
        }
        Arrays.sort(nanos);
        System.out.printf("Allocate (2 ports) over the unix socket, %d calls: p50 %.3f ms, p99 %.3f ms, max %.3f ms%n",
                calls, nanos[calls / 2] / 1e6, nanos[(int) (calls * 0.99)] / 1e6, nanos[calls - 1] / 1e6);
    }

    private static void health(ManagedChannel channel, HostTree tree, int rounds, int pollMillis) throws Exception {
        BlockingQueue<long[]> updates = new LinkedBlockingQueue<>();
        DevicePluginGrpc.newStub(channel).listAndWatch(Empty.getDefaultInstance(), new StreamObserver<>() {
            @Override
            public void onNext(ListAndWatchResponse value) {
                boolean healthy = value.getDevicesList().stream().filter(d -> d.getID().equals("mlx5_2:1")).findFirst()
                        .orElseThrow().getHealth().equals("Healthy");
                updates.add(new long[] {System.nanoTime(), healthy ? 1 : 0});
            }

            @Override
            public void onError(Throwable t) {}

            @Override
            public void onCompleted() {}
        });
        updates.take();
        List<Long> delays = new ArrayList<>();
        String state = tree.portDir("mlx5_2", 1) + "/state";
        for (int i = 0; i < rounds; i++) {
            boolean down = i % 2 == 0;
            long start = System.nanoTime();
            tree.file(state, down ? "1: DOWN" : "4: ACTIVE");
            long[] update = updates.poll(5, TimeUnit.SECONDS);
            if (update == null || (update[1] == 1) == down) {
                throw new IllegalStateException("no ListAndWatch update after writing " + state);
            }
            delays.add(update[0] - start);
            Thread.sleep(37L * (i % 7)); // land the next change at a different point of the poll cycle
        }
        delays.sort(null);
        System.out.printf("port state change to ListAndWatch update, %d changes, poll %d ms: median %.0f ms, max %.0f ms%n",
                rounds, pollMillis, delays.get(rounds / 2) / 1e6, delays.getLast() / 1e6);
    }

    private static void reregister(FakeKubelet kubelet, int rounds) throws Exception {
        List<Long> delays = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            int before = kubelet.registrations().size();
            kubelet.restart();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (kubelet.registrations().size() == before && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            if (kubelet.registrations().size() == before) {
                throw new IllegalStateException("no registration within 5 s of the kubelet restart");
            }
            delays.add(kubelet.registrationNanos().getLast() - kubelet.servingSinceNanos());
        }
        delays.sort(null);
        System.out.printf("kubelet.sock re-created to registration, %d restarts: median %.1f ms, max %.1f ms%n",
                rounds, delays.get(rounds / 2) / 1e6, delays.getLast() / 1e6);
    }
}
