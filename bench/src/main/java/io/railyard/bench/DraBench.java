package io.railyard.bench;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.grpc.ManagedChannel;
import io.railyard.agent.PluginServer;
import io.railyard.agent.dra.DraAgent;
import io.railyard.agent.dra.registration.InfoRequest;
import io.railyard.agent.dra.registration.RegistrationGrpc;
import io.railyard.agent.dra.registration.RegistrationStatus;
import io.railyard.agent.dra.v1.Claim;
import io.railyard.agent.dra.v1.DRAPluginGrpc;
import io.railyard.agent.dra.v1.NodePrepareResourcesRequest;
import io.railyard.agent.dra.v1.NodeUnprepareResourcesRequest;
import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The DRA driver's latencies on an example node (four RoCE ports), the three parties in processes of their own as on a
 * node: this one plays the kubelet, the agent runs as {@code railyard agent --dra} with the JVM options of the
 * DaemonSet, and the fabric8 CRUD mock API server (no real API server or kubelet can be had here) runs in a third.
 * Measured: NodePrepareResources and NodeUnprepareResources over the real unix socket, one claim a call as the kubelet
 * makes them for a pod, p50/p99 once warm, and the first calls of the cold agent; a plain GET of a claim on the same server as the peer (prepare reads the claim once);
 * the time from a port going down or up in sysfs to the ResourceSlice in the API saying so (health poll 500 ms); and
 * the agent's resident memory, for the DaemonSet's limit.
 * The mock keeps a window of {@link #STORED} claims: it finds an object by scanning all it holds (a GET costs 0.65 ms
 * with 2,000 claims stored, 5 ms with 6,000), where an API server reads one key.
 * CDI specs go to tmpfs, as /var/run/cdi is on a node; the checkpoint to disk, as /var/lib/kubelet is.
 * Arguments: CLAIMS WARMUP PORT_CHANGES API_URL JAR [AGENT_JVM_OPTION...].
 */
public final class DraBench {
    static final int STORED = 100;
    private static final String[] DEVICES = {"mlx5-1-port1", "mlx5-2-port1", "mlx5-3-port1", "mlx5-4-port1"};

    private DraBench() {}

    public static void main(String[] args) throws Exception {
        int claims = Integer.parseInt(args[0]);
        int warmup = Integer.parseInt(args[1]);
        int changes = Integer.parseInt(args[2]);
        String api = args[3];
        Path jar = Path.of(args[4]);
        List<String> jvmOptions = List.of(args).subList(5, args.length);
        Path dir = Files.createTempDirectory("dra-bench");
        HostTree tree = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("host"));
        Files.createDirectories(dir.resolve("plugins"));
        Files.createDirectories(dir.resolve("registry"));
        Path cdi = Files.isDirectory(Path.of("/dev/shm")) ? Files.createTempDirectory(Path.of("/dev/shm"), "dra-bench-cdi") : dir.resolve("cdi");
        Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters: [{name: mock, cluster: {server: "%s"}}]
                contexts: [{name: mock, context: {cluster: mock, user: bench}}]
                users: [{name: bench, user: {}}]
                current-context: mock
                """.formatted(api));
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(new ConfigBuilder().withMasterUrl(api).build()).build()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("node").endMetadata().build()).create();
            warmApiServer(client, warmup);
            List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
            command.addAll(jvmOptions);
            command.addAll(List.of("-jar", jar.toString(), "agent", "--dra", "--no-device-plugin", "--root", tree.root().toString(),
                    "--node-name", "node", "--kubeconfig", kubeconfig.toString(), "--health-address", "127.0.0.1:0",
                    "--kubelet-plugins-dir", dir.resolve("plugins").toString(), "--plugins-registry-dir", dir.resolve("registry").toString(),
                    "--cdi-dir", cdi.toString()));
            Process agent = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("agent.log").toFile()).start();
            try {
                awaitAgent(agent, client, dir);
                register(dir.resolve("registry/rdma.railyard.io-reg.sock"));
                Thread.sleep(2000); // settled: its slices written, the start-up's compilation done
                long started = memory(agent, "VmRSS");
                measure(client, dir.resolve("plugins/rdma.railyard.io/dra.sock"), claims, warmup);
                measurePortChanges(client, tree, changes);
                System.out.printf("agent memory: resident %d MiB after start, %d MiB at the end, peak %d MiB%n", started, memory(agent, "VmRSS"),
                        memory(agent, "VmHWM"));
            } finally {
                agent.destroy(); // SIGTERM, as the kubelet stops a pod
                agent.waitFor(10, TimeUnit.SECONDS);
            }
        }
        System.exit(0);
    }

    private static void awaitAgent(Process agent, KubernetesClient client, Path dir) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(dir.resolve("plugins/rdma.railyard.io/dra.sock")) || client.resources(ResourceSlice.class).list().getItems().isEmpty()) {
            if (!agent.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("the agent did not start:\n" + Files.readString(dir.resolve("agent.log")));
            }
            Thread.sleep(50);
        }
    }

    /** The API server and this kubelet's client are warm before the agent starts, as they are on a node. */
    private static void warmApiServer(KubernetesClient client, int calls) {
        for (int i = 0; i < calls; i++) {
            ResourceClaim claim = createClaim(client, i);
            client.resources(ResourceClaim.class).inNamespace("bench").withName(claim.getMetadata().getName()).get();
            client.resource(claim).delete();
        }
    }

    /** What the kubelet's plugin watcher does first when the registration socket appears. */
    private static void register(Path socket) {
        ManagedChannel channel = PluginServer.dial(socket);
        var registration = RegistrationGrpc.newBlockingStub(channel);
        registration.getInfo(InfoRequest.getDefaultInstance());
        registration.notifyRegistrationStatus(RegistrationStatus.newBuilder().setPluginRegistered(true).build());
        channel.shutdownNow();
    }

    /**
     * The first calls warm the JVMs (an agent is warm after a few thousand claims, which a node may never see: the
     * first calls are reported apart); the next CLAIMS are measured.
     */
    private static void measure(KubernetesClient client, Path socket, int claims, int warmup) {
        ManagedChannel channel = PluginServer.dial(socket);
        var stub = DRAPluginGrpc.newBlockingStub(channel);
        Deque<ResourceClaim> stored = new ArrayDeque<>();
        for (int i = 0; i < STORED; i++) {
            stored.add(createClaim(client, i));
        }
        long[] get = new long[claims];
        long[] prepare = new long[claims];
        long[] unprepare = new long[claims];
        long[] cold = new long[Math.min(100, warmup)];
        for (int i = 0; i < warmup + claims; i++) {
            ResourceClaim claim = stored.removeFirst();
            String name = claim.getMetadata().getName();
            Claim ref = Claim.newBuilder().setNamespace("bench").setName(name).setUid(claim.getMetadata().getUid()).build();
            long start = System.nanoTime();
            client.resources(ResourceClaim.class).inNamespace("bench").withName(name).get();
            long getNanos = System.nanoTime() - start;
            start = System.nanoTime();
            String error = stub.nodePrepareResources(NodePrepareResourcesRequest.newBuilder().addClaims(ref).build()).getClaimsOrThrow(ref.getUid()).getError();
            long prepareNanos = System.nanoTime() - start;
            if (!error.isEmpty()) {
                throw new IllegalStateException(error);
            }
            start = System.nanoTime();
            stub.nodeUnprepareResources(NodeUnprepareResourcesRequest.newBuilder().addClaims(ref).build());
            long unprepareNanos = System.nanoTime() - start;
            if (i < cold.length) {
                cold[i] = prepareNanos;
            } else if (i >= warmup) {
                get[i - warmup] = getNanos;
                prepare[i - warmup] = prepareNanos;
                unprepare[i - warmup] = unprepareNanos;
            }
            client.resource(claim).delete();
            stored.addLast(createClaim(client, i + STORED));
        }
        channel.shutdownNow();
        System.out.printf("cold agent: first NodePrepareResources %.1f ms, the first %d: p50 %.2f ms, p99 %.2f ms%n", cold[0] / 1e6, cold.length,
                percentile(cold, 50), percentile(cold, 99));
        System.out.printf("NodePrepareResources, %d claims of 1-4 devices after %d warm-up calls: p50 %.2f ms, p99 %.2f ms; NodeUnprepareResources p50 %.2f ms, p99 %.2f ms%n",
                claims, warmup, percentile(prepare, 50), percentile(prepare, 99), percentile(unprepare, 50), percentile(unprepare, 99));
        System.out.printf("peer: a plain GET of the claim on the same server (%d claims stored): p50 %.2f ms, p99 %.2f ms (prepare p50 = %.2f x the GET)%n",
                STORED, percentile(get, 50), percentile(get, 99), percentile(prepare, 50) / percentile(get, 50));
    }

    /** A claim as the scheduler leaves it: 1 to 4 of the node's ports allocated to request "nics". */
    private static ResourceClaim createClaim(KubernetesClient client, int i) {
        ResourceClaimBuilder claim = new ResourceClaimBuilder().withNewMetadata().withName("claim-" + i).withNamespace("bench").endMetadata()
                .withNewSpec().endSpec().withNewStatus().withNewAllocation().withNewDevices().endDevices().endAllocation().endStatus();
        for (int d = 0; d <= i % DEVICES.length; d++) {
            claim.editStatus().editAllocation().editDevices().addNewResult().withDriver(DraAgent.DEFAULT_DRIVER).withPool("node")
                    .withDevice(DEVICES[d]).withRequest("nics").endResult().endDevices().endAllocation().endStatus();
        }
        return client.resource(claim.build()).create();
    }

    private static void measurePortChanges(KubernetesClient client, HostTree tree, int changes) throws Exception {
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
    }

    /** A field of the process's /proc status, in MiB. */
    private static long memory(Process process, String field) throws java.io.IOException {
        return Files.readAllLines(Path.of("/proc", String.valueOf(process.pid()), "status")).stream().filter(line -> line.startsWith(field + ":"))
                .mapToLong(line -> Long.parseLong(line.replaceAll("\\D", "")) / 1024).findFirst().orElse(-1);
    }

    private static boolean healthy(KubernetesClient client, String device) {
        return client.resources(ResourceSlice.class).list().getItems().stream().flatMap(s -> s.getSpec().getDevices().stream())
                .filter(d -> d.getName().equals(device)).findFirst().orElseThrow().getAttributes().get("healthy").getBool();
    }

    private static double percentile(long[] nanos, int percentile) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        int index = Math.min(sorted.length - 1, (int) Math.ceil(percentile / 100.0 * sorted.length) - 1);
        return sorted[Math.max(0, index)] / 1e6;
    }
}
