package io.railyard.agent.health;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.railyard.agent.AgentConfig;
import io.railyard.agent.FakeKubelet;
import io.railyard.cli.ConditionMergingDispatcher;
import io.railyard.node.NodeDiscovery;
import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The node's RDMA conditions, measured three ways. (1) `railyard agent` as a process (the DaemonSet's JVM options) on
 * an InfiniBand example tree, against the fabric8 CRUD mock API server (conditions merged by type, as an API server
 * does): a port changed in sysfs to the condition readable on the API, CHANGES times, p50/p99. (2) The API writes of a
 * steady node over one simulated hour: the monitor polled 7,200 times at 500 ms on a clock the bench moves. (3) The
 * agent's CPU per poll with the device plugin serving a kubelet stand-in, node health off and on, alternating.
 *   NodeHealthBench CHANGES CPU_SECONDS RUNS JAR [JVM OPTIONS...]
 */
public final class NodeHealthBench {
    private static final String NODE = "bench-ib-01";
    private static final long POLL_MS = 500;
    /** How long the agent runs before its CPU is measured (bench/node-health.sh's WARM_SECONDS). */
    private static final int WARM_SECONDS = Integer.getInteger("railyard.bench.warmSeconds", 10);

    private NodeHealthBench() {}

    public static void main(String[] args) throws Exception {
        int changes = Integer.parseInt(args[0]);
        int cpuSeconds = Integer.parseInt(args[1]);
        int runs = Integer.parseInt(args[2]);
        String jar = args[3];
        List<String> jvm = List.of(args).subList(4, args.length);
        Path dir = Files.createTempDirectory("node-health-bench");
        ConditionMergingDispatcher dispatcher = new ConditionMergingDispatcher();
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
        server.init();
        try (KubernetesClient client = server.createClient()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().withNewStatus()
                    .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build()).create();
            Path kubeconfig = kubeconfig(dir, client);
            latency(dir, client, kubeconfig, jar, jvm, changes);
            writesPerHour(dir, client, dispatcher);
            pollCost(dir, client);
            for (int run = 1; run <= runs; run++) {
                double[] off = cpuPerPoll(dir, kubeconfig, jar, jvm, false, cpuSeconds);
                double[] on = cpuPerPoll(dir, kubeconfig, jar, jvm, true, cpuSeconds);
                System.out.printf("run %d: agent process CPU per poll: node health off %.3f ms, on %.3f ms (on/off %.2f); with it on, "
                        + "the device plugin's poll thread %.3f ms and the node health thread %.3f ms per poll (%.1f%%)%n",
                        run, off[0], on[0], on[0] / off[0], on[1], on[2], 100 * on[2] / on[1]);
            }
        } finally {
            server.destroy();
        }
        System.exit(0);
    }

    private static void latency(Path dir, KubernetesClient client, Path kubeconfig, String jar, List<String> jvm, int changes) throws Exception {
        HostTree tree = ExampleNodes.write(ExampleNodes.INFINIBAND, dir.resolve("latency"));
        Process agent = agent(dir, tree.root(), kubeconfig, jar, jvm, "{stickySeconds: 0}", null);
        try {
            awaitCondition(client, "False", Duration.ofSeconds(60));
            List<Long> millis = new ArrayList<>();
            for (int change = 0; change < changes; change++) {
                boolean down = change % 2 == 0;
                long start = System.nanoTime();
                tree.file(tree.portDir("mlx5_3", 1) + "/state", down ? "1: DOWN" : "4: ACTIVE");
                tree.file(tree.portDir("mlx5_3", 1) + "/phys_state", down ? "2: Polling" : "5: LinkUp");
                awaitCondition(client, down ? "True" : "False", Duration.ofSeconds(10));
                millis.add((System.nanoTime() - start) / 1_000_000);
            }
            millis.sort(null);
            System.out.printf("port change -> RdmaPortDown on the API, %d changes, poll %d ms: p50 %d ms, p99 %d ms, max %d ms%n", changes,
                    POLL_MS, millis.get(millis.size() / 2), millis.get((int) Math.ceil(millis.size() * 0.99) - 1), millis.getLast());
        } finally {
            agent.destroy();
            agent.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Polls the stored Node every 2 ms until RdmaPortDown has the status. */
    private static void awaitCondition(KubernetesClient client, String status, Duration limit) throws InterruptedException {
        long end = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < end) {
            var node = client.nodes().withName(NODE).get();
            List<NodeCondition> conditions = node.getStatus() == null ? List.of() : node.getStatus().getConditions();
            if (conditions.stream().anyMatch(c -> c.getType().equals("RdmaPortDown") && c.getStatus().equals(status))) {
                return;
            }
            Thread.sleep(2);
        }
        throw new IllegalStateException("RdmaPortDown did not become " + status + " within " + limit + ": the Node holds "
                + client.nodes().withName(NODE).get().getStatus());
    }

    private static void writesPerHour(Path dir, KubernetesClient client, ConditionMergingDispatcher dispatcher) {
        HostTree tree = ExampleNodes.write(ExampleNodes.INFINIBAND, dir.resolve("steady"));
        MovingClock clock = new MovingClock(Instant.parse("2026-01-01T00:00:00Z"));
        NodeHealthMonitor monitor = new NodeHealthMonitor(tree.root(), NodeDiscovery.discover(tree.root()).ports(), java.util.Map::of,
                AgentConfig.defaults().nodeHealth(), client, NODE, clock);
        int before = client.v1().events().inNamespace("default").list().getItems().size();
        int patchesBefore = dispatcher.statusPatches().size();
        for (int poll = 0; poll < 3600 * 1000 / POLL_MS; poll++) {
            monitor.poll();
            clock.advance(Duration.ofMillis(POLL_MS));
        }
        int patches = dispatcher.statusPatches().size() - patchesBefore;
        int events = client.v1().events().inNamespace("default").list().getItems().size() - before;
        System.out.printf("steady node, one simulated hour (7200 polls of 500 ms): %d status patches, %d events%n", patches, events);
    }

    /**
     * The CPU one poll costs, in this thread, measured over many: the device plugin's health poll of every port (what the
     * agent did before), and that poll followed by the node health poll that reads its results (what it does now).
     */
    private static void pollCost(Path dir, KubernetesClient client) {
        HostTree tree = ExampleNodes.write(ExampleNodes.INFINIBAND, dir.resolve("cost"));
        var node = NodeDiscovery.discover(tree.root());
        List<io.railyard.agent.PluginDevice> devices = io.railyard.agent.PluginDevice.forResource(node,
                AgentConfig.defaults().resources().getFirst(), new java.util.HashSet<>());
        io.railyard.node.Sysfs sysfs = new io.railyard.node.Sysfs(tree.root());
        java.util.concurrent.atomic.AtomicReference<java.util.Map<String, io.railyard.agent.PortHealth>> read =
                new java.util.concurrent.atomic.AtomicReference<>(java.util.Map.of());
        MovingClock clock = new MovingClock(Instant.parse("2026-01-01T00:00:00Z"));
        NodeHealthMonitor monitor = new NodeHealthMonitor(tree.root(), node.ports(), read::get, AgentConfig.defaults().nodeHealth(), client,
                NODE, clock);
        Runnable plugin = () -> {
            java.util.Map<String, io.railyard.agent.PortHealth> ports = new java.util.HashMap<>();
            devices.forEach(device -> ports.put(device.port().id(), io.railyard.agent.PortHealth.of(sysfs, device)));
            read.set(ports);
        };
        Runnable both = () -> {
            plugin.run();
            monitor.poll();
            clock.advance(Duration.ofMillis(POLL_MS));
        };
        for (int round = 1; round <= 5; round++) {
            double before = cpuMicrosPerCall(plugin, 20_000);
            double after = cpuMicrosPerCall(both, 20_000);
            System.out.printf("round %d, one poll of %d ports in-process: device plugin alone %.1f us CPU, with node health %.1f us (%+.1f%%)%n",
                    round, devices.size(), before, after, 100 * (after - before) / before);
        }
    }

    private static double cpuMicrosPerCall(Runnable call, int calls) {
        var threads = java.lang.management.ManagementFactory.getThreadMXBean();
        for (int i = 0; i < calls / 4; i++) {
            call.run();
        }
        long start = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < calls; i++) {
            call.run();
        }
        return (threads.getCurrentThreadCpuTime() - start) / 1000.0 / calls;
    }

    /** CPU milliseconds per poll: the whole process, the device plugin's poll thread, the node health thread. */
    private static double[] cpuPerPoll(Path dir, Path kubeconfig, String jar, List<String> jvm, boolean nodeHealth, int seconds) throws Exception {
        HostTree tree = ExampleNodes.write(ExampleNodes.INFINIBAND, dir.resolve("cpu-" + nodeHealth + "-" + System.nanoTime()));
        Path plugins = Files.createDirectories(dir.resolve("plugins-" + System.nanoTime()));
        try (FakeKubelet kubelet = FakeKubelet.start(plugins)) {
            Process agent = agent(dir, tree.root(), kubeconfig, jar, jvm, "{enabled: " + nodeHealth + "}", plugins);
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (kubelet.registrations().isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                Thread.sleep(WARM_SECONDS * 1000L); // the compiler settles before the measured window
                long start = cpuMillis(agent.pid(), "");
                long pluginStart = cpuMillis(agent.pid(), "railyard-agent");
                long healthStart = cpuMillis(agent.pid(), "railyard-node-h");
                Thread.sleep(seconds * 1000L);
                double polls = seconds * 1000.0 / POLL_MS;
                return new double[] {(cpuMillis(agent.pid(), "") - start) / polls, (cpuMillis(agent.pid(), "railyard-agent") - pluginStart) / polls,
                    (cpuMillis(agent.pid(), "railyard-node-h") - healthStart) / polls};
            } finally {
                agent.destroy();
                agent.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static Process agent(Path dir, Path root, Path kubeconfig, String jar, List<String> jvm, String nodeHealth, Path plugins) throws Exception {
        Path config = Files.writeString(dir.resolve("agent-" + System.nanoTime() + ".yaml"), "resources: [{name: rdma/ib}]\nnodeHealth: " + nodeHealth + "\n");
        List<String> argv = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
        argv.addAll(jvm);
        argv.addAll(List.of("-jar", jar, "agent", "--root", root.toString(), "--node-name", NODE, "--config", config.toString(),
                "--kubeconfig", kubeconfig.toString(), "--poll-interval-ms", String.valueOf(POLL_MS), "--health-address", "127.0.0.1:0"));
        argv.addAll(plugins == null ? List.of("--no-device-plugin") : List.of("--device-plugin-dir", plugins.toString()));
        return new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(dir.resolve("agent-" + System.nanoTime() + ".log").toFile()).start();
    }

    /** utime + stime of a process (thread prefix "") or of its threads whose name starts so, from /proc (ticks of 10 ms). */
    private static long cpuMillis(long pid, String thread) throws Exception {
        if (thread.isEmpty()) {
            return ticks(Path.of("/proc", String.valueOf(pid), "stat")) * 10;
        }
        long ticks = 0;
        try (var tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
            for (Path task : tasks.toList()) {
                if (Files.readString(task.resolve("comm")).strip().startsWith(thread)) {
                    ticks += ticks(task.resolve("stat"));
                }
            }
        }
        return ticks * 10;
    }

    private static long ticks(Path stat) throws Exception {
        String[] fields = Files.readString(stat).replaceFirst("^.*\\) ", "").split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    private static Path kubeconfig(Path dir, KubernetesClient client) throws Exception {
        return Files.writeString(dir.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters: [{name: mock, cluster: {server: '%s', insecure-skip-tls-verify: true}}]
                contexts: [{name: mock, context: {cluster: mock, user: bench}}]
                current-context: mock
                users: [{name: bench, user: {token: bench}}]
                """.formatted(client.getMasterUrl()));
    }

    /** A clock the bench moves: an hour of polls in seconds. */
    private static final class MovingClock extends Clock {
        private Instant now;

        MovingClock(Instant start) {
            now = start;
        }

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }
}
