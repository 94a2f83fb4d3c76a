package io.railyard.e2e;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.stream.Stream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;

/** Nodes that KWOK keeps Ready (annotation {@code kwok.x-k8s.io/node=fake}), and pod logs it serves from files. */
final class KwokNodes {
    private KwokNodes() {}

    /** The label of a test class's own nodes, which its jobs select: each class places its gangs apart from the others'. */
    static final String GROUP = "e2e.railyard.io/group";

    /** A node shaped like {@code examples/nodes/roce-8gpu}: 8 GPUs, 8 RDMA devices and the label the agent writes. */
    static Node rdma(KubernetesClient client, String name, String group) {
        return create(client, name, group, Map.of("railyard.io/rdma", "true", "nvidia.com/gpu.present", "true"),
                Map.of("nvidia.com/gpu", "8", "rdma/rdma", "8"));
    }

    /** A GPU node without RDMA: no RDMA resource, no label. */
    static Node gpuOnly(KubernetesClient client, String name, String group) {
        return create(client, name, group, Map.of("nvidia.com/gpu.present", "true"), Map.of("nvidia.com/gpu", "8"));
    }

    static Node create(KubernetesClient client, String name, String group, Map<String, String> labels, Map<String, String> devices) {
        NodeBuilder node = new NodeBuilder().withNewMetadata().withName(name)
                .addToAnnotations("kwok.x-k8s.io/node", "fake").addToLabels(labels).addToLabels(GROUP, group)
                .addToLabels("kubernetes.io/hostname", name).addToLabels("type", "kwok").endMetadata()
                .withNewStatus().addToCapacity("cpu", new Quantity("192")).addToCapacity("memory", new Quantity("2Ti"))
                .addToCapacity("pods", new Quantity("110")).endStatus();
        devices.forEach((resource, count) -> node.editStatus().addToCapacity(resource, new Quantity(count)).endStatus());
        node.editStatus().withAllocatable(node.buildStatus().getCapacity()).endStatus();
        Node built = node.build();
        // what a 1.37 kubelet declares: the scheduler's NodeDeclaredFeatures filter keeps pods with in-place restart rules off
        // nodes that do not
        built.getStatus().setDeclaredFeatures(List.of("RestartAllContainersOnContainerExits"));
        Node created = client.nodes().resource(built).create();
        Awaitility.await("KWOK makes node " + name + " Ready").atMost(Duration.ofSeconds(30)).until(() -> ready(client.nodes().withName(name).get()));
        return created;
    }

    /** What the agent writes when a port of the node goes down: RdmaPortDown True. */
    static void portDown(KubernetesClient client, String node) {
        client.nodes().withName(node).editStatus(edited -> {
            edited.getStatus().getConditions().add(new io.fabric8.kubernetes.api.model.NodeConditionBuilder().withType("RdmaPortDown")
                    .withStatus("True").withReason("PortNotActive").withMessage("mlx5_1 port 1 is DOWN")
                    .withLastTransitionTime(Instant.now().toString()).build());
            return edited;
        });
    }

    static boolean ready(Node node) {
        return node != null && node.getStatus() != null && node.getStatus().getConditions() != null && node.getStatus().getConditions().stream()
                .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
    }

    /**
     * KWOK serves this file's lines as the container's log through the API server's {@code pods/log}; it reads the
     * kubelet's CRI log format, so each line is written again with a time and its stream first.
     */
    static void serveLog(KubernetesClient client, String namespace, String pod, String container, Path file) {
        Path cri = ControlPlane.REPO.resolve("e2e/target/logs/kwok").resolve(namespace + "_" + pod + "_" + container + ".log");
        try (Stream<String> lines = Files.lines(file, StandardCharsets.ISO_8859_1)) {
            Files.createDirectories(cri.getParent());
            String stamp = Instant.now().toString();
            Files.write(cri, (Iterable<String>) lines.map(line -> stamp + " stdout F " + line)::iterator, StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        GenericKubernetesResource logs = new GenericKubernetesResourceBuilder().withApiVersion("kwok.x-k8s.io/v1alpha1").withKind("Logs")
                .withNewMetadata().withName(pod).withNamespace(namespace).endMetadata()
                .addToAdditionalProperties("spec", Map.of("logs", List.of(Map.of("containers", List.of(container),
                        "logsFile", cri.toString(), "follow", false))))
                .build();
        client.resource(logs).create();
    }

    /** The pod's containers end with this exit code (KWOK stage {@code railyard-pod-exit}): Succeeded for 0, else Failed. */
    static void exit(KubernetesClient client, String namespace, String pod, int code) {
        client.pods().inNamespace(namespace).withName(pod)
                .edit(p -> new PodBuilder(p).editMetadata().addToAnnotations("kwok.railyard.io/exit-code", String.valueOf(code)).endMetadata().build());
    }
}
