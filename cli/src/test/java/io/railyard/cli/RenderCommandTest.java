package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RenderCommandTest {
    private static final Path EXAMPLES = Path.of(System.getProperty("railyard.repo", "..")).resolve("examples/trainingjobs");

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"llama70b-roce.yaml", "ib-volcano.yaml", "hostnetwork-kueue.yaml", "topology.yaml", "preflight.yaml", "dra-aligned.yaml"})
    void everyExampleRenders(String example) {
        CommandRun run = CommandRun.of("render", "-f", EXAMPLES.resolve(example).toString(), "--allowed-host-paths=/mnt/lustre");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).startsWith("---\napiVersion: \"v1\"\nkind: \"Service\"").contains("kind: \"Pod\"");
        assertThat(run.err()).isEmpty();
    }

    @Test
    void schedulerKubernetesRendersTheWorkloadAndPodGroupOf137AndWarnsForAnOlderCluster() throws Exception {
        Path job = Files.writeString(dir.resolve("job.yaml"), "apiVersion: railyard.io/v1alpha1\nkind: TrainingJob\nmetadata: {name: j, namespace: ns}\n"
                + "spec: {image: p, script: t.py, nodes: 2, gpusPerNode: 8, rdma: {devicesPerNode: 8}, scheduling: {scheduler: kubernetes}}\n");

        CommandRun current = CommandRun.of("render", "-f", job.toString(), "--kube-version", "1.37");
        CommandRun old = CommandRun.of("render", "-f", job.toString(), "--kube-version", "1.36");

        assertThat(current.err()).isEmpty();
        assertThat(current.out()).contains("apiVersion: \"scheduling.k8s.io/v1beta1\"\nkind: \"Workload\"",
                "apiVersion: \"scheduling.k8s.io/v1beta1\"\nkind: \"PodGroup\"", "minCount: 2", "podGroupName: \"j\"");
        assertThat(old.exitCode()).isZero();
        assertThat(old.err()).startsWith("render: warning: spec.scheduling.scheduler is kubernetes but this cluster does not serve"
                + " scheduling.k8s.io/v1beta1 Workload and PodGroup");
    }

    @Test
    void theKubeVersionDecidesWhetherPodsRestartInPlace() throws Exception {
        Path job = Files.writeString(dir.resolve("job.yaml"), "apiVersion: railyard.io/v1alpha1\nkind: TrainingJob\nmetadata: {name: j, namespace: ns}\n"
                + "spec: {image: p, script: t.py, nodes: 2, gpusPerNode: 8, rdma: {devicesPerNode: 8}, scheduling: {scheduler: volcano},"
                + " runPolicy: {restartStrategy: InPlace}, spareNodes: 1}\n");

        CommandRun current = CommandRun.of("render", "-f", job.toString());
        CommandRun old = CommandRun.of("render", "-f", job.toString(), "--kube-version", "1.35");
        CommandRun wrong = CommandRun.of("render", "-f", job.toString(), "--kube-version", "latest");

        assertThat(current.err()).isEmpty();
        assertThat(current.out()).contains("name: \"restart-watch\"", "action: \"RestartAllContainers\"", "--labels=/etc/railyard/pod/labels",
                "name: \"j-spare-0\"", "railyard.io/spare: \"true\"");
        assertThat(old.exitCode()).isZero();
        assertThat(old.out()).doesNotContain("restart-watch", "restartPolicyRules", "--labels=", "j-spare-0");
        assertThat(old.err()).startsWith("render: warning: spec.runPolicy.restartStrategy is InPlace but this cluster does not restart pods in place")
                .contains("; the pods are shown as Recreate makes them\n")
                .endsWith("render: warning: spec.spareNodes is 1 but the gang is recreated whole on a restart (restartStrategy Recreate, or a"
                        + " cluster that does not restart pods in place): no spare is kept\n");
        assertThat(wrong.exitCode()).isEqualTo(2);
        assertThat(wrong.err()).isEqualTo("render: --kube-version latest is not a version such as 1.36\n");
    }

    @Test
    void aHostPathTheOperatorWouldRefuseIsWarnedOf() {
        CommandRun run = CommandRun.of("render", "-f", EXAMPLES.resolve("ib-volcano.yaml").toString());
        CommandRun root = CommandRun.of("render", "-f", EXAMPLES.resolve("ib-volcano.yaml").toString(), "--allowed-host-paths", "/mnt/..");

        assertThat(run.exitCode()).isZero();
        assertThat(run.err()).isEqualTo("render: warning: spec.dataset.hostPath: /mnt/lustre/datasets/pile is not under the operator's "
                + "--allowed-host-paths (none allowed): use a PersistentVolumeClaim, or have the operator started with a prefix that covers it; "
                + "the operator refuses the job\n");
        assertThat(root.exitCode()).isEqualTo(2);
        assertThat(root.err()).startsWith("render: --allowed-host-paths /mnt/..: give absolute directories below /");
    }

    @Test
    void jsonIsAListKubectlReads() throws Exception {
        CommandRun run = CommandRun.of("render", "-f", EXAMPLES.resolve("ib-volcano.yaml").toString(), "-o", "json");

        JsonNode list = new ObjectMapper().readTree(run.out());
        assertThat(list.path("apiVersion").asText()).isEqualTo("v1");
        assertThat(list.path("kind").asText()).isEqualTo("List");
        JsonNode objects = list.path("items");
        assertThat(objects).hasSize(7);
        assertThat(objects.get(1).path("kind").asText()).as("its channels open to its own pods only").isEqualTo("NetworkPolicy");
        assertThat(objects.get(2).path("kind").asText()).isEqualTo("PodGroup");
        assertThat(objects.get(2).path("spec").path("minMember").asInt()).isEqualTo(4);
    }

    @Test
    void everyInvalidFieldIsNamed() throws Exception {
        Path job = Files.writeString(dir.resolve("job.yaml"), """
                apiVersion: railyard.io/v1alpha1
                kind: TrainingJob
                metadata: {name: bad}
                spec: {image: pytorch, nodes: 0, gpusPerNode: 8, masterPort: 99999}
                """);

        CommandRun run = CommandRun.of("render", "-f", job.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err().lines()).containsExactly(
                "render: " + job + ": spec: exactly one of script or module must be set",
                "render: " + job + ": spec.nodes: must be at least 1",
                "render: " + job + ": spec.masterPort: must be between 1 and 65535");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void yamlSyntaxErrorsNameLineAndColumn() throws Exception {
        Path job = Files.writeString(dir.resolve("job.yaml"), "apiVersion: railyard.io/v1alpha1\nkind: TrainingJob\nspec:\n  nodes: [2\n");

        CommandRun run = CommandRun.of("render", "-f", job.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).startsWith("render: " + job + ": line ").contains("column").hasLineCount(1);
    }

    @Test
    void unknownFieldsAreNamed() throws Exception {
        Path job = Files.writeString(dir.resolve("job.yaml"), """
                apiVersion: railyard.io/v1alpha1
                kind: TrainingJob
                metadata: {name: typo}
                spec: {image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, rdma: {devicesPerNodes: 4}}
                """);

        CommandRun run = CommandRun.of("render", "-f", job.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("render: " + job + ": spec.rdma.devicesPerNodes: unknown field\n");
    }

    @Test
    void everyUnknownFieldAndWrongTypeOfEveryDocumentIsNamed() throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.yaml"), """
                apiVersion: railyard.io/v1alpha1
                kind: TrainingJob
                metadata: {name: first, labels: {team: a}}
                spec: {image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, gpuPerNode: 8, rdma: {devicesPerNodes: 4}}
                ---
                apiVersion: railyard.io/v1alpha1
                kind: TrainingJob
                metadata: {name: second}
                spec: {image: pytorch, script: t.py, nodes: two, gpusPerNode: 8}
                ---
                apiVersion: railyard.io/v1alpha1
                kind: TrainingJob
                metadata: {name: third}
                spec: {image: pytorch, script: t.py, nodes: 99999999999, gpusPerNode: 8, scheduling: {scheduler: slurm}}
                ---
                apiVersion: railyard.io/v1alpha1
                kind: TrainingJob
                metadata: {name: fourth}
                spec: {image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, preflight: {minLineRatePercent: 120, timeoutSeconds: 5}}
                """);

        CommandRun run = CommandRun.of("render", "-f", jobs.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err().lines()).containsExactly(
                "render: " + jobs + " (document 1): spec.gpuPerNode: unknown field",
                "render: " + jobs + " (document 1): spec.rdma.devicesPerNodes: unknown field",
                "render: " + jobs + " (document 2): spec.nodes: 'two' is not an integer",
                "render: " + jobs + " (document 3): spec.nodes: 99999999999 is out of range (at most 2147483647)",
                "render: " + jobs + " (document 3): spec.scheduling.scheduler: 'slurm' is not one of default, volcano, kueue, kubernetes",
                "render: " + jobs + " (document 4): spec.preflight.minLineRatePercent: must be between 1 and 100",
                "render: " + jobs + " (document 4): spec.preflight.timeoutSeconds: must be at least 10");
    }

    @Test
    void everyJobOfAFileIsRendered() throws Exception {
        String one = Files.readString(EXAMPLES.resolve("ib-volcano.yaml"));
        String two = Files.readString(EXAMPLES.resolve("llama70b-roce.yaml"));
        Path jobs = Files.writeString(dir.resolve("jobs.yaml"), one + "\n---\n" + two);

        CommandRun run = CommandRun.of("render", "-f", jobs.toString(), "-o", "json");

        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode items = new ObjectMapper().readTree(run.out()).path("items");
        List<String> services = new java.util.ArrayList<>();
        items.forEach(item -> {
            if (item.path("kind").asText().equals("Service")) {
                services.add(item.path("metadata").path("name").asText());
            }
        });
        assertThat(services).hasSize(2).doesNotHaveDuplicates();
    }

    @Test
    void otherKindsAndMissingFilesAreRefused() throws Exception {
        Path pod = Files.writeString(dir.resolve("pod.yaml"), "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n");

        assertThat(CommandRun.of("render", "-f", pod.toString()).err()).contains("is not a TrainingJob");
        assertThat(CommandRun.of("render", "-f", dir.resolve("none.yaml").toString()).err()).endsWith("none.yaml: no such file\n");
        Path binary = Files.write(dir.resolve("job.tar.gz"), new byte[] {0x1f, (byte) 0x8b, 8, 0, (byte) 0xff, (byte) 0xfe, 0});
        CommandRun run = CommandRun.of("render", "-f", binary.toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("render: " + binary + ": not UTF-8 text (a binary file?)\n");
        assertThat(CommandRun.of("render", "-f", dir.toString()).err()).isEqualTo("render: " + dir + ": a directory, not a file\n");
    }

    @Test
    void defaultSchedulerWarnsOnStandardError() throws Exception {
        Path job = Files.writeString(dir.resolve("job.yaml"), """
                apiVersion: railyard.io/v1alpha1
                kind: TrainingJob
                metadata: {name: plain}
                spec: {image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8}
                """);

        CommandRun run = CommandRun.of("render", "-f", job.toString());

        assertThat(run.exitCode()).isZero();
        assertThat(run.err()).startsWith("render: warning: spec.scheduling.scheduler is default");
    }
}
