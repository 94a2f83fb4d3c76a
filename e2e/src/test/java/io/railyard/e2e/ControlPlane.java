package io.railyard.e2e;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The real control plane of this test JVM: {@code tools/control-plane up} in {@code e2e/target/control-plane}, an admin
 * client of it, and {@code down} when the tests end. Without the built binaries the tier is skipped (one line saying
 * how to build them), except under CI, where it fails.
 */
final class ControlPlane implements AutoCloseable {
    static final Path REPO = Path.of(System.getProperty("railyard.repo", "..")).toAbsolutePath().normalize();
    private static final Path SCRIPT = REPO.resolve("tools/control-plane");

    final Path dir;
    final Path kubeconfig;
    final Path binaries;
    final KubernetesClient admin;
    /** Whether Volcano's scheduler and controllers run beside it. */
    final boolean volcano;
    /** Whether Kueue's controller manager runs beside it. */
    final boolean kueue;
    /** Each time the API server was started again, until its /readyz answered. */
    final List<Window> apiServerStarts = new CopyOnWriteArrayList<>();

    /** From {@code from} to {@code to}, both included. */
    record Window(Instant from, Instant to) {
        boolean holds(Instant instant) {
            return !instant.isBefore(from) && !instant.isAfter(to);
        }
    }

    private ControlPlane(Path dir, Path binaries, boolean volcano, boolean kueue) {
        this.volcano = volcano;
        this.kueue = kueue;
        this.dir = dir;
        this.binaries = binaries;
        this.kubeconfig = dir.resolve("kubeconfig");
        this.admin = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(read(kubeconfig))).build();
    }

    static ControlPlane start() {
        Path binaries = builtOrSkipped();
        Path dir = REPO.resolve("e2e/target/control-plane");
        Processes.Result down = Processes.run(REPO, 60, SCRIPT.toString(), "down", "--dir", dir.toString()); // a run killed before its down
        // Volcano and Kueue beside it where they are built (.ci/run builds them): VolcanoIT and KueueIT place gangs with them
        List<String> up = new ArrayList<>(List.of(SCRIPT.toString(), "up", "--dir", dir.toString()));
        boolean volcano = built("volcano", "vc-scheduler", "vc-controller-manager");
        boolean kueue = built("kueue", "kueue");
        if (volcano) {
            up.addAll(List.of("--with", "volcano"));
        }
        if (kueue) {
            up.addAll(List.of("--with", "kueue"));
        }
        Processes.Result started = Processes.run(REPO, 300, null, up);
        if (started.exitCode() != 0) {
            Assertions.fail("tools/control-plane up failed (" + started.exitCode() + "): " + started.err() + down.err());
        }
        return new ControlPlane(dir, binaries, volcano, kueue);
    }

    /** Whether {@code tools/control-plane build --with <extra>} has built it: its binaries are there. */
    static boolean built(String extra, String... binaries) {
        Path folder = Path.of(Processes.run(REPO, 10, SCRIPT.toString(), "bin", extra).out().strip());
        return Stream.of(binaries).allMatch(binary -> Files.isExecutable(folder.resolve(binary)));
    }

    /**
     * The folder of the built binaries; without them the test is skipped with the line that says how to build them,
     * except under CI, where it fails.
     */
    static Path builtOrSkipped() {
        Path binaries = Path.of(Processes.run(REPO, 10, SCRIPT.toString(), "bin").out().strip());
        if (!Files.isExecutable(binaries.resolve("kube-apiserver")) || !Files.isExecutable(binaries.resolve("kwok"))) {
            String message = "the control plane is not built (" + binaries + "): run tools/control-plane build (needs Go 1.26"
                    + " and the Go module proxy; about 12 minutes of compiling the first time on 2 cores)";
            if (System.getenv("RAILYARD_CI") != null) {
                Assertions.fail(message);
            }
            Assumptions.abort(message);
        }
        return binaries;
    }

    /** Takes one process of the cluster away ({@code etcd}, {@code kube-apiserver}, ...), its state kept. */
    void stop(String component) {
        tool("stop", component);
    }

    /** Starts it again with the command line {@code up} gave it; the API server until its /readyz answers. */
    void start(String component) {
        Instant from = Instant.now();
        tool("start", component);
        if (component.equals("kube-apiserver")) {
            apiServerStarts.add(new Window(from, Instant.now()));
        }
    }

    Path auditLog() {
        return dir.resolve("logs/audit.log");
    }

    /** The cluster's own kubectl, as admin. */
    Processes.Result kubectl(String stdin, String... args) {
        List<String> command = new ArrayList<>(List.of(binaries.resolve("kubectl").toString(), "--kubeconfig", kubeconfig.toString()));
        command.addAll(List.of(args));
        return Processes.run(REPO, 120, stdin, command);
    }

    private void tool(String... args) {
        List<String> command = new ArrayList<>(List.of(SCRIPT.toString()));
        command.addAll(List.of(args));
        command.addAll(List.of("--dir", dir.toString()));
        Processes.Result result = Processes.run(REPO, 60, null, command);
        Assertions.assertEquals(0, result.exitCode(), () -> String.join(" ", command) + ": " + result.err());
    }

    /** Stops the cluster, unless {@code -Drailyard.e2e.keep=true} asks to keep it for a look after the tests. */
    @Override
    public void close() {
        admin.close();
        if (Boolean.getBoolean("railyard.e2e.keep")) {
            System.out.println("control plane kept: export KUBECONFIG=" + kubeconfig + "; tools/control-plane down --dir " + dir);
            return;
        }
        Processes.run(REPO, 60, SCRIPT.toString(), "down", "--dir", dir.toString());
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file, e);
        }
    }
}
