package io.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * {@code railyard up} as a newcomer runs it: its own control plane with Volcano and Kueue, Railyard installed, agents on
 * their node trees; every shipped example submitted with {@code --wait} to RDMA verified and Succeeded (preflight.yaml's
 * gate measured by its helper on each node's tree); a port planted down under a running gang and the gang restarted off that node; {@code railyard down}
 * leaving no process and no state.
 */
@Order(90)
class UpIT {
    /** The shipped examples, each alone; preflight.yaml's 16 nodes are the most any needs. */
    private static final List<String> EXAMPLES = List.of("ib-volcano", "topology", "dra-aligned", "hostnetwork-kueue", "preflight");
    private static final Path DIR = ControlPlane.REPO.resolve("e2e/target/up");

    @Test
    void upRunsTheExamplesRecoversFromAPortDownAndDownLeavesNothing() throws IOException {
        ControlPlane.builtOrSkipped();
        Processes.Result stale = railyard(60, "down", "--dir", DIR.toString()); // an earlier run killed before its down
        Assertions.assertEquals(0, stale.exitCode(), stale.err());
        Instant began = Instant.now();
        Processes.Result up = railyard(900, "up", "--dir", DIR.toString(), "--nodes", "16", "--run-seconds", "15");
        Processes.Result down;
        try {
            Assertions.assertEquals(0, up.exitCode(), up.out() + up.err());
            Path kubeconfig = DIR.resolve("control-plane/kubeconfig");
            assertThat(up.out().strip().lines().toList().getLast()).isEqualTo("export KUBECONFIG=" + kubeconfig);
            assertThat(ListeningSockets.beyondLoopback(sandboxProcesses())).as("sockets of railyard up's processes beyond 127.0.0.1").isEmpty();
            try (KubernetesClient admin = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(kubeconfig))).build()) {
                portDownUnderARunningGang(admin, kubeconfig);
                everyExampleSucceeds(kubeconfig);
            }
            List<String> denied = Audit.operatorRequests(DIR.resolve("control-plane/logs/audit.log"), began).stream()
                    .filter(request -> request.code() == 403).map(request -> request.key() + " " + request.uri()).toList();
            assertThat(denied).as("requests of the operator the API server denied").isEmpty();
        } finally {
            keepLogs();
            down = railyard(120, "down", "--dir", DIR.toString()); // a failed run leaves nothing running either
        }
        Assertions.assertEquals(0, down.exitCode(), down.err());
        assertThat(DIR).doesNotExist();
        assertThat(ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("").contains(DIR.toString()))
                .map(p -> p.pid() + " " + p.info().commandLine().orElse("")).toList()).as("processes of railyard up after down").isEmpty();
    }

    private static void everyExampleSucceeds(Path kubeconfig) {
        for (String example : EXAMPLES) {
            Processes.Result submitted = railyard(240, "submit", "-f", "examples/trainingjobs/" + example + ".yaml", "--wait",
                    "--kubeconfig", kubeconfig.toString());
            Assertions.assertEquals(0, submitted.exitCode(), example + ": " + submitted.out() + submitted.err());
            assertThat(submitted.out().strip().lines().toList().getLast()).as(example).contains("Succeeded").contains("RDMA verified");
        }
        // the gate's helper ran on each node's tree: 16 pods × 8 HCAs, each against the next pod's
        Processes.Result status = railyard(30, "status", "llama-sft", "-n", "training", "--kubeconfig", kubeconfig.toString());
        assertThat(status.out()).contains("PreflightPassed=True AllLinksFast: 128 links at or above the minimum (slowest 98.0% of line rate)");
    }

    /** The README's example: RDMA verified, then a port of rank 0's node down; the gang runs again off it and succeeds. */
    private static void portDownUnderARunningGang(KubernetesClient admin, Path kubeconfig) {
        Processes.Result submitted = railyard(60, "submit", "-f", "examples/trainingjobs/llama70b-roce.yaml", "--kubeconfig", kubeconfig.toString());
        Assertions.assertEquals(0, submitted.exitCode(), submitted.err());
        Awaitility.await("llama70b-sft runs with RDMA verified").atMost(Duration.ofSeconds(120)).until(() -> {
            TrainingJobStatus status = status(admin);
            return status != null && status.rdma != null && "Running".equals(status.phase) && status.ranks != null
                    && status.conditions.stream().anyMatch(c -> c.getType().equals("RdmaVerified") && c.getStatus().equals("True"));
        });
        String node = status(admin).ranks.stream().filter(rank -> rank.rank == 0).findFirst().orElseThrow().node;
        Processes.Result fault = railyard(30, "up", "fault", node, "mlx5_0", "--dir", DIR.toString());
        Assertions.assertEquals(0, fault.exitCode(), fault.err());
        assertThat(fault.out()).contains("mlx5_0/1 of " + node + " is DOWN");
        Awaitility.await("the gang restarted off " + node).atMost(Duration.ofSeconds(120)).until(() -> {
            TrainingJobStatus status = status(admin);
            return status.excludedNodes != null && status.excludedNodes.stream().anyMatch(excluded -> excluded.node.equals(node))
                    && "Running".equals(status.phase) && status.ranks != null && status.ranks.stream().noneMatch(rank -> rank.node.equals(node));
        });
        Processes.Result status = railyard(30, "status", "llama70b-sft", "-n", "training", "--kubeconfig", kubeconfig.toString());
        assertThat(status.out()).contains("excluded node " + node + ": RdmaPortDown").contains("restarts 1");
        Awaitility.await("llama70b-sft succeeds").atMost(Duration.ofSeconds(120)).until(() -> "Succeeded".equals(status(admin).phase));
        Assertions.assertEquals(0, railyard(30, "up", "fault", node, "mlx5_0", "--clear", "--dir", DIR.toString()).exitCode());
    }

    /** The logs of the sandbox's processes and control plane, kept in e2e/target/logs/up when down removes the sandbox. */
    private static void keepLogs() throws IOException {
        Path kept = ControlPlane.REPO.resolve("e2e/target/logs/up");
        for (Path logs : List.of(DIR.resolve("logs"), DIR.resolve("control-plane/logs"))) {
            if (!Files.isDirectory(logs)) {
                continue;
            }
            Files.createDirectories(kept);
            try (Stream<Path> files = Files.list(logs)) {
                for (Path file : files.filter(f -> !f.getFileName().toString().equals("audit.log")).toList()) {
                    Files.copy(file, kept.resolve(file.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    private static TrainingJobStatus status(KubernetesClient admin) {
        TrainingJob job = admin.resources(TrainingJob.class).inNamespace("training").withName("llama70b-sft").get();
        return job == null ? null : job.getStatus();
    }

    /** The pids of the processes railyard up started, its own and the control plane's. */
    private static List<Long> sandboxProcesses() throws IOException {
        List<Long> pids = new ArrayList<>();
        for (Path folder : List.of(DIR.resolve("pids"), DIR.resolve("control-plane"))) {
            try (Stream<Path> files = Files.list(folder)) {
                for (Path file : files.filter(f -> f.toString().endsWith(".pid")).toList()) {
                    pids.add(Long.parseLong(Files.readString(file).strip()));
                }
            }
        }
        return pids;
    }

    /** Railyard's jar as ./railyard runs it from this clone. */
    private static Processes.Result railyard(int seconds, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Drailyard.home=" + ControlPlane.REPO, "-jar", Installation.JAR.toString()));
        command.addAll(List.of(args));
        return Processes.run(ControlPlane.REPO, seconds, null, command);
    }
}
