package io.railyard.bench;

import io.railyard.agent.health.NodeHealthMonitor;
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
import io.railyard.testkit.MovingClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
    /** The agent's poll interval (railyard.bench.pollMs): shorter ones bring its JIT to steady state sooner. */
    private static final long POLL_MS = Long.getLong("railyard.bench.pollMs", 500);
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
                boolean offFirst = run % 2 == 1; // alternate which goes first: a drift of the machine favours neither
                double[] off = offFirst ? cpuPerPoll(dir, kubeconfig, jar, jvm, false, cpuSeconds) : null;
                double[] on = cpuPerPoll(dir, kubeconfig, jar, jvm, true, cpuSeconds);
                off = offFirst ? off : cpuPerPoll(dir, kubeconfig, jar, jvm, false, cpuSeconds);
                System.out.printf("run %d, CPU ms per poll, node health off -> on: the agent's poll threads %.3f -> %.3f (device plugin %.3f, "
                        + "node health %.3f: %+.1f%%); the whole process, the JIT compilers' work on the new code included, %.2f -> %.2f%n",
                        run, off[1], on[1] + on[2], on[1], on[2], 100 * (on[1] + on[2] - off[1]) / off[1], off[0], on[0]);
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
        List<Double> added = new ArrayList<>();
        for (int round = 1; round <= 15; round++) {
            boolean pluginFirst = round % 2 == 1; // alternate which goes first: neither always meets a warmer cache
            double before = pluginFirst ? cpuMicrosPerCall(plugin, 8_000) : 0;
            double after = cpuMicrosPerCall(both, 8_000);
            before = pluginFirst ? before : cpuMicrosPerCall(plugin, 8_000);
            added.add(100 * (after - before) / before);
            System.out.printf("round %d, one poll of %d ports in-process: device plugin alone %.1f us CPU, with node health %.1f us (%+.1f%%)%n",
                    round, devices.size(), before, after, added.getLast());
        }
        added.sort(null);
        System.out.printf("node health adds %+.1f%% to a poll (median of %d rounds)%n", added.get(added.size() / 2), added.size());
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
                double start = processMillis(agent.pid());
                double pluginStart = cpuMillis(agent.pid(), "railyard-agent");
                double healthStart = cpuMillis(agent.pid(), "railyard-node-h");
                Map<String, Double> threadsStart = byThread(agent.pid());
                Thread.sleep(seconds * 1000L);
                double polls = seconds * 1000.0 / POLL_MS;
                if (Boolean.getBoolean("railyard.bench.threads")) {
                    Map<String, Double> threadsEnd = byThread(agent.pid());
                    System.out.println("  node health " + (nodeHealth ? "on" : "off") + ", CPU ms per poll by thread: " + threadsEnd.entrySet().stream()
                            .map(e -> Map.entry(e.getKey(), (e.getValue() - threadsStart.getOrDefault(e.getKey(), 0.0)) / polls))
                            .filter(e -> e.getValue() > 0.005).sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                            .map(e -> String.format("%s %.3f", e.getKey(), e.getValue())).toList());
                }
                return new double[] {(processMillis(agent.pid()) - start) / polls, (cpuMillis(agent.pid(), "railyard-agent") - pluginStart) / polls,
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

    /** utime + stime of the whole process, threads that ended included (/proc counts ticks of 10 ms). */
    private static double processMillis(long pid) throws Exception {
        String[] fields = Files.readString(Path.of("/proc", String.valueOf(pid), "stat")).replaceFirst("^.*\\) ", "").split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10.0;
    }

    /**
     * CPU milliseconds of a process's live threads whose name starts so ("" for all), from each thread's schedstat
     * (nanoseconds: /proc's utime and stime count ticks of 10 ms, too coarse for a poll of a tenth of a millisecond).
     */
    private static double cpuMillis(long pid, String thread) throws Exception {
        long nanos = 0;
        try (var tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    if (Files.readString(task.resolve("comm")).strip().startsWith(thread)) {
                        nanos += Long.parseLong(Files.readString(task.resolve("schedstat")).split(" ")[0]);
                    }
                } catch (java.nio.file.NoSuchFileException gone) {
                    // a thread that ended between the listing and the read
                }
            }
        }
        return nanos / 1e6;
    }

    /** CPU milliseconds by thread name (threads of one name summed), for railyard.bench.threads. */
    private static Map<String, Double> byThread(long pid) throws Exception {
        Map<String, Double> millis = new java.util.TreeMap<>();
        try (var tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    millis.merge(Files.readString(task.resolve("comm")).strip(),
                            Long.parseLong(Files.readString(task.resolve("schedstat")).split(" ")[0]) / 1e6, Double::sum);
                } catch (java.nio.file.NoSuchFileException gone) {
                    // ended meanwhile
                }
            }
        }
        return millis;
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
}
