package io.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * KWOK nodes laid out as the shipped ibsim fat-tree (8 hosts, 4 under each of two rail groups, rails-leaf-01 and
 * rails-leaf-03), with the labels and scheduler objects {@code railyard fabric} writes from it. Its hosts become nodes
 * {@code PREFIX-01} to {@code PREFIX-08} through {@code --node-name-map}, so that each test has nodes of its own.
 */
final class FabricNodes {
    private static final String FABRIC = "testdata/ibsim/fattree/ibnetdiscover.txt";

    private final ControlPlane cluster;
    private final Path nameMap;

    FabricNodes(ControlPlane cluster, String prefix) {
        this.cluster = cluster;
        this.nameMap = ControlPlane.REPO.resolve("e2e/target/" + prefix + "-node-names.txt");
        List<String> lines = new ArrayList<>();
        for (int host = 1; host <= 8; host++) {
            lines.add("gpu-node-%02d %s-%02d".formatted(host, prefix, host));
        }
        try {
            Files.createDirectories(nameMap.getParent());
            Files.write(nameMap, lines);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What {@code railyard fabric} prints with {@code option} (--labels, --hyper-nodes, --kueue-topology), applied as it is. */
    void apply(String option) {
        cluster.admin.load(new ByteArrayInputStream(fabric(option).getBytes(StandardCharsets.UTF_8))).serverSideApply();
    }

    /**
     * The fabric's hosts as KWOK nodes of the test's group, 8 GPUs and 8 RDMA ports each, with the labels railyard fabric
     * writes, except {@code absent}; returns each node's fabric labels, all 8 of them.
     */
    Map<String, Map<String, String>> nodes(String group, Set<String> absent) {
        KubernetesClient client = cluster.admin;
        Map<String, Map<String, String>> hosts = new TreeMap<>();
        client.load(new ByteArrayInputStream(fabric("--labels").getBytes(StandardCharsets.UTF_8))).items()
                .forEach(node -> hosts.put(node.getMetadata().getName(), node.getMetadata().getLabels()));
        assertThat(hosts).hasSize(8);
        hosts.forEach((name, fabricLabels) -> {
            if (!absent.contains(name)) {
                Map<String, String> labels = new HashMap<>(fabricLabels);
                labels.putAll(Map.of("railyard.io/rdma", "true", "nvidia.com/gpu.present", "true"));
                KwokNodes.create(client, name, group, labels, Map.of("nvidia.com/gpu", "8", "rdma/rdma", "8"));
            }
        });
        return hosts;
    }

    private String fabric(String option) {
        Processes.Result printed = RailyardProcess.run(cluster, null, "fabric", "--ibnetdiscover", FABRIC, "--node-name-map", nameMap.toString(), option);
        assertThat(printed.exitCode()).as(printed.err()).isZero();
        return printed.out();
    }
}
