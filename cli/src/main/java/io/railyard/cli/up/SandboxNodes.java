package io.railyard.cli.up;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.node.NodeDiscovery;
import io.railyard.node.NodeInventory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The sandbox's nodes: each a KWOK node (annotation {@code kwok.x-k8s.io/node=fake}) with its own copy of a host tree
 * of {@code examples/nodes}, symlinks as the kernel makes them, which its agent reads and a planted fault changes.
 */
final class SandboxNodes {
    /** Every node of the sandbox carries it: the workload player's nodes, Kueue's flavor. */
    static final String SANDBOX_LABEL = "railyard.io/sandbox";

    private SandboxNodes() {}

    /** The shapes shipped, each a folder of {@code examples/nodes} (a broken one is not a node to train on). */
    static List<String> shapes(Path home) {
        try (Stream<Path> trees = Files.list(home.resolve("examples/nodes"))) {
            return trees.filter(Files::isDirectory).map(tree -> tree.getFileName().toString()).filter(name -> !name.equals("broken")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The node's name: its index after {@code rdma-}. */
    static String name(int index) {
        return "rdma-" + index;
    }

    /** Copies the shape's tree for the node; links are copied as links, so the copy reads as the original does. */
    static void copyTree(Path shape, Path root) {
        try (Stream<Path> paths = Files.walk(shape)) {
            for (Path path : (Iterable<Path>) paths::iterator) {
                Path target = root.resolve(shape.relativize(path).toString());
                if (Files.isSymbolicLink(path)) {
                    Files.createSymbolicLink(target, Files.readSymbolicLink(path));
                } else if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target, LinkOption.NOFOLLOW_LINKS);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What {@code nodes} nodes of this tree hold: their CPUs, memory, GPUs and RDMA ports (pods aside). */
    static Map<String, Quantity> capacity(Path root, int nodes) {
        NodeInventory inventory = NodeDiscovery.discover(root);
        Map<String, Quantity> capacity = new LinkedHashMap<>();
        capacity.put("cpu", new Quantity(String.valueOf(192 * nodes)));
        capacity.put("memory", new Quantity(2 * nodes + "Ti"));
        capacity.put("nvidia.com/gpu", new Quantity(String.valueOf(inventory.gpus().size() * nodes)));
        capacity.put("rdma/rdma", new Quantity(String.valueOf(inventory.ports().size() * nodes)));
        return capacity;
    }

    /**
     * The KWOK node for a tree: the GPUs and RDMA ports the tree shows as the capacity the device plugins would have
     * registered with a kubelet (there is none), and what a 1.37 kubelet declares for in-place restarts.
     */
    static Node create(KubernetesClient admin, String name, Path root) {
        NodeBuilder node = new NodeBuilder().withNewMetadata().withName(name)
                .addToAnnotations("kwok.x-k8s.io/node", "fake")
                .addToLabels(Map.of("kubernetes.io/hostname", name, "type", "kwok", SANDBOX_LABEL, "true")).endMetadata()
                .withNewStatus().withCapacity(capacity(root, 1)).addToCapacity("pods", new Quantity("110")).endStatus();
        node.editStatus().withAllocatable(node.buildStatus().getCapacity()).endStatus();
        Node built = node.build();
        built.getStatus().setDeclaredFeatures(List.of("RestartAllContainersOnContainerExits"));
        return admin.nodes().resource(built).create();
    }
}
