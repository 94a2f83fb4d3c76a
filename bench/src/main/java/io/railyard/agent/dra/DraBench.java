package io.railyard.agent.dra;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.railyard.agent.AgentConfig;
import io.railyard.agent.dra.v1.Claim;
import io.railyard.agent.dra.v1.DRAPluginGrpc;
import io.railyard.agent.dra.v1.NodePrepareResourcesRequest;
import io.railyard.agent.dra.v1.NodeUnprepareResourcesRequest;
import io.railyard.node.NodeDiscovery;
import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/**
 * The DRA driver's latencies on an example node (four RoCE ports) against the fabric8 CRUD mock API server (no real
 * API server or kubelet can be had here): NodePrepareResources and NodeUnprepareResources over the real unix socket,
 * one claim a call as the kubelet makes them for a pod, p50/p99; a plain GET of a claim on the same server as the
 * peer (prepare reads the claim once); and the time from a port going down or up in sysfs to the ResourceSlice in the
 * API saying so, with the agent's default 500 ms health poll. CDI specs go to tmpfs, as /var/run/cdi is on a node; the
 * checkpoint to disk, as /var/lib/kubelet is. Arguments: [CLAIMS] [PORT_CHANGES] [API_URL] (default 2000 10, and the
 * mock server in this process; bench/dra.sh gives the URL of one in a process of its own, as an API server is).
 */
public final class DraBench {
    private DraBench() {}

    public static void main(String[] args) throws Exception {
        int claims = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int changes = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        String api = args.length > 2 ? args[2] : null;
        KubernetesMockServer server = api != null ? null
                : new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        if (server != null) {
            server.init();
        }
        Path dir = Files.createTempDirectory("dra-bench");
        HostTree tree = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("host"));
        Files.createDirectories(dir.resolve("plugins"));
        Files.createDirectories(dir.resolve("registry"));
        // /var/run/cdi is on tmpfs (/run) on a node, the checkpoint under /var/lib/kubelet on disk: the same here
        Path cdi = Files.isDirectory(Path.of("/dev/shm")) ? Files.createTempDirectory(Path.of("/dev/shm"), "dra-bench-cdi") : dir.resolve("cdi");
        try (KubernetesClient client = server != null ? server.createClient()
                : new KubernetesClientBuilder().withConfig(new ConfigBuilder().withMasterUrl(api).build()).build()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("node").endMetadata().build()).create();
            DraAgent agent = DraAgent.create(NodeDiscovery.discover(tree.root()), tree.root(), AgentConfig.defaults(), client,
                    new DraAgent.Options(DraAgent.DEFAULT_DRIVER, dir.resolve("plugins"), dir.resolve("registry"), cdi, "node",
                            Duration.ofMillis(500)));
            agent.start();
            ManagedChannel channel = Grpc.newChannelBuilder("unix:" + dir.resolve("plugins/rdma.railyard.io/dra.sock"), InsecureChannelCredentials.create()).build();
            var stub = DRAPluginGrpc.newBlockingStub(channel);
            String[] devices = {"mlx5-1-port1", "mlx5-2-port1", "mlx5-3-port1", "mlx5-4-port1"};
            List<ResourceClaim> created = new ArrayList<>();
            for (int i = 0; i < claims; i++) {
                ResourceClaimBuilder claim = new ResourceClaimBuilder().withNewMetadata().withName("claim-" + i).withNamespace("bench").endMetadata()
                        .withNewSpec().endSpec().withNewStatus().withNewAllocation().withNewDevices().endDevices().endAllocation().endStatus();
                for (int d = 0; d <= i % devices.length; d++) {
                    claim.editStatus().editAllocation().editDevices().addNewResult().withDriver(DraAgent.DEFAULT_DRIVER).withPool("node")
                            .withDevice(devices[d]).withRequest("nics").endResult().endDevices().endAllocation().endStatus();
                }
                created.add(client.resource(claim.build()).create());
            }
            long[] get = new long[claims];
            long[] prepare = new long[claims];
            long[] unprepare = new long[claims];
            for (int round = 0; round < 2; round++) { // the first round warms the JIT; the second is measured
                for (int i = 0; i < claims; i++) {
                    ResourceClaim claim = created.get(i);
                    Claim ref = Claim.newBuilder().setNamespace("bench").setName(claim.getMetadata().getName()).setUid(claim.getMetadata().getUid()).build();
                    long start = System.nanoTime();
                    client.resources(ResourceClaim.class).inNamespace("bench").withName(claim.getMetadata().getName()).get();
                    get[i] = System.nanoTime() - start;
                    start = System.nanoTime();
                    String error = stub.nodePrepareResources(NodePrepareResourcesRequest.newBuilder().addClaims(ref).build())
                            .getClaimsOrThrow(ref.getUid()).getError();
                    prepare[i] = System.nanoTime() - start;
                    if (!error.isEmpty()) {
                        throw new IllegalStateException(error);
                    }
                    start = System.nanoTime();
                    stub.nodeUnprepareResources(NodeUnprepareResourcesRequest.newBuilder().addClaims(ref).build());
                    unprepare[i] = System.nanoTime() - start;
                }
            }
            System.out.printf("NodePrepareResources, %d claims of 1-4 devices: p50 %.2f ms, p99 %.2f ms; NodeUnprepareResources p50 %.2f ms, p99 %.2f ms%n",
                    claims, percentile(prepare, 50), percentile(prepare, 99), percentile(unprepare, 50), percentile(unprepare, 99));
            System.out.printf("peer: a plain GET of the claim on the same server: p50 %.2f ms, p99 %.2f ms (prepare p50 = %.2f x the GET)%n",
                    percentile(get, 50), percentile(get, 99), percentile(prepare, 50) / percentile(get, 50));
            long[] toSlice = new long[changes];
            for (int i = 0; i < changes; i++) {
                boolean down = i % 2 == 0;
                long start = System.nanoTime();
                tree.port("mlx5_2", 1, down ? "1: DOWN" : "4: ACTIVE", down ? "3: Disabled" : "5: LinkUp", "200 Gb/sec (2X HDR)", "Ethernet", 0, 0);
                while (healthy(client, "mlx5-2-port1") == down) {
                    Thread.sleep(5);
                }
                toSlice[i] = System.nanoTime() - start;
            }
            System.out.printf("port change -> ResourceSlice updated, %d changes: median %.0f ms, max %.0f ms (health poll 500 ms)%n", changes,
                    percentile(toSlice, 50), percentile(toSlice, 100));
            channel.shutdownNow();
            agent.close();
        } finally {
            if (server != null) {
                server.destroy();
            }
        }
        System.exit(0);
    }

    private static boolean healthy(KubernetesClient client, String device) {
        return client.resources(ResourceSlice.class).list().getItems().stream().flatMap(s -> s.getSpec().getDevices().stream())
                .filter(d -> d.getName().equals(device)).findFirst().orElseThrow().getAttributes().get("healthy").getBool();
    }

    private static double percentile(long[] nanos, int percentile) {
        long[] sorted = nanos.clone();
        java.util.Arrays.sort(sorted);
        int index = Math.min(sorted.length - 1, (int) Math.ceil(percentile / 100.0 * sorted.length) - 1);
        return sorted[Math.max(0, index)] / 1e6;
    }
}
