package io.railyard.cli.up;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.railyard.node.NodeDiscovery;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The steps of {@code railyard up}, in order: the control plane (built first if it is not), Railyard installed as its
 * README says, what the shipped examples need, the nodes with their agents, the operator, the workload player. Each
 * step says what it does; a part that does not start is named with its log.
 */
public final class SandboxUp {
    /** @param schedulers the gang schedulers beside kube-scheduler: volcano, kueue, both, or none */
    public record Settings(int nodes, String shape, List<String> schedulers, Duration runLength) {}

    /** How long it took, and a node and one of its HCAs, for the fault a user tries next. */
    public record Started(Duration took, String node, String hca) {}

    /** Agents started together, each batch labelling its nodes before the next starts: each asks the API server once at its start. */
    private static final int AGENTS_AT_ONCE = 4;

    private final Path home;
    private final Sandbox sandbox;
    private final Consumer<String> progress;

    public SandboxUp(Path home, Sandbox sandbox, Consumer<String> progress) {
        this.home = home;
        this.sandbox = sandbox;
        this.progress = progress;
    }

    public Sandbox sandbox() {
        return sandbox;
    }

    public static String nodeName(int index) {
        return SandboxNodes.name(index);
    }

    public Started start(Settings settings) {
        Instant began = Instant.now();
        List<String> shapes = SandboxNodes.shapes(home);
        if (!shapes.contains(settings.shape())) {
            throw new SandboxException("no node shape " + settings.shape() + " in examples/nodes: one of " + String.join(", ", shapes));
        }
        ControlPlaneScript script = ControlPlaneScript.of(home);
        new SandboxDown(home, sandbox, progress).stopIfUp();
        if (!sandbox.ownsOrEmpty()) {
            throw new SandboxException(sandbox.dir() + " holds files of something else: give --dir a new or empty folder");
        }
        List<String> extras = settings.schedulers();
        if (!script.built()) {
            progress.accept("building the control plane once (Go 1.26 and the Go module proxy; about 35 minutes on a fresh 2-core machine,"
                    + " seconds once cached in " + script.binaries().getParent() + ")");
        }
        script.build(extras); // what is cached is kept: seconds
        progress.accept("starting the control plane" + (extras.isEmpty() ? "" : " with " + String.join(", ", extras)));
        script.up(sandbox.controlPlane(), extras);

        try (KubernetesClient admin = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(read(sandbox.kubeconfig()))).build()) {
            progress.accept("installing Railyard as the README does (deploy/: the CRD, the operator's and the agent's RBAC)");
            SandboxInstall install = new SandboxInstall(admin, home);
            install.install();
            Path ca = sandbox.controlPlane().resolve("pki/ca.crt");
            Path operatorConfig = install.kubeconfigOf(SandboxInstall.OPERATOR, sandbox.dir(), ca);
            Path agentConfig = install.kubeconfigOf(SandboxInstall.AGENT, sandbox.dir(), ca);
            ExampleNeeds needs = ExampleNeeds.of(home.resolve("examples/trainingjobs"));
            Path shape = home.resolve("examples/nodes").resolve(settings.shape());
            needs.prepare(admin, install, sandbox, extras, SandboxNodes.capacity(shape, settings.nodes()));
            progress.accept("for the shipped examples: namespaces " + needs.namespaces() + ", claims " + needs.claims()
                    + ", priority classes " + needs.priorityClasses() + ", host paths the operator allows " + needs.hostPaths()
                    + (extras.contains("volcano") ? ", Volcano queues " + needs.volcanoQueues() : "")
                    + (extras.contains("kueue") ? ", Kueue LocalQueues " + needs.kueueQueues() + " of ClusterQueue " + ExampleNeeds.CLUSTER_QUEUE : ""));

            // the operator first, while the API server has time to answer it: it asks once at its start, and sixteen agents
            // starting at once on two cores can keep an answer longer than that
            Daemons daemons = new Daemons(sandbox);
            List<String> operator = new ArrayList<>(List.of("operator", "--kubeconfig", operatorConfig.toString(),
                    "--leader-election-namespace", SandboxInstall.SYSTEM));
            if (!needs.hostPaths().isEmpty()) {
                operator.add("--allowed-host-paths=" + String.join(",", needs.hostPaths()));
            }
            daemons.start("operator", "384m", operator);
            daemons.start("workloads", "160m", List.of("up", "workloads", "--dir", sandbox.dir().toString(),
                    "--node-shape", settings.shape(), "--run-seconds", String.valueOf(settings.runLength().toSeconds())));
            await("the operator leads (Lease railyard-operator)", daemons, "operator", Duration.ofSeconds(90),
                    () -> admin.leases().inNamespace(SandboxInstall.SYSTEM).withName(SandboxInstall.OPERATOR).get() != null);
            List<String> nodes = new ArrayList<>();
            for (int i = 0; i < settings.nodes(); i++) {
                String node = SandboxNodes.name(i);
                Path root = sandbox.nodeRoot(node);
                SandboxNodes.copyTree(shape, root);
                SandboxNodes.create(admin, node, root);
                daemons.start("agent-" + node, "160m", agentArgs(node, root, agentConfig));
                nodes.add(node);
                if (nodes.size() % AGENTS_AT_ONCE == 0 || i == settings.nodes() - 1) { // a few JVMs starting at a time on few cores
                    for (String started : nodes.subList((nodes.size() - 1) / AGENTS_AT_ONCE * AGENTS_AT_ONCE, nodes.size())) {
                        await("the agent labels " + started, daemons, "agent-" + started, Duration.ofSeconds(90), () -> labelled(admin, started));
                    }
                }
            }
            progress.accept(nodes.size() + " KWOK nodes of " + settings.shape() + ", each with its agent on its own tree: " + String.join(", ", nodes));
            if (!daemons.running("workloads")) {
                throw new SandboxException("the workload player exited: see " + daemons.log("workloads") + "; railyard down cleans up");
            }
        }
        Properties written = new Properties();
        written.setProperty("nodes", String.valueOf(settings.nodes()));
        written.setProperty("node-shape", settings.shape());
        written.setProperty("scheduler", settings.schedulers().isEmpty() ? "none" : String.join(",", settings.schedulers()));
        sandbox.writeSettings(written);
        String hca = NodeDiscovery.discover(sandbox.nodeRoot(SandboxNodes.name(0))).hcas().getFirst().name();
        return new Started(Duration.between(began, Instant.now()), SandboxNodes.name(0), hca);
    }

    private static List<String> agentArgs(String node, Path root, Path kubeconfig) {
        Path dir = root.getParent();
        return List.of("agent", "--no-device-plugin", "--dra", "--root", root.toString(), "--node-name", node,
                "--health-address", "127.0.0.1:" + freePort(), "--kubeconfig", kubeconfig.toString(),
                "--kubelet-plugins-dir", directory(dir.resolve("plugins")), "--plugins-registry-dir", directory(dir.resolve("plugins_registry")),
                "--cdi-dir", directory(dir.resolve("cdi")));
    }

    private static boolean labelled(KubernetesClient admin, String node) {
        var labels = admin.nodes().withName(node).get().getMetadata().getLabels();
        return labels != null && labels.containsKey("railyard.io/rdma");
    }

    /** Waits for a part; one that exits or does not get there in time is named with its log. */
    private static void await(String what, Daemons daemons, String daemon, Duration timeout, BooleanSupplier done) {
        Instant deadline = Instant.now().plus(timeout);
        while (!done.getAsBoolean()) {
            if (!daemons.running(daemon)) {
                throw new SandboxException(daemon + " exited before " + what + ": see " + daemons.log(daemon) + "; railyard down cleans up");
            }
            if (Instant.now().isAfter(deadline)) {
                throw new SandboxException("waited " + timeout.toSeconds() + " s for " + what + ": see " + daemons.log(daemon) + "; railyard down cleans up");
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SandboxException("interrupted while waiting for " + what + "; railyard down cleans up");
            }
        }
    }

    private static String directory(Path dir) {
        try {
            return Files.createDirectories(dir).toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new SandboxException("cannot read " + file + ": " + e.getMessage());
        }
    }
}
