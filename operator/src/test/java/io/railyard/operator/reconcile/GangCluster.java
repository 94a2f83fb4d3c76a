package io.railyard.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The cluster side of the gang tests on the mock API server: pools of Ready RDMA nodes, a 2-node job's pods and status. */
final class GangCluster {
    private GangCluster() {}

    /** Three Ready RDMA nodes POOL-1 to POOL-3 labelled pool=POOL, with addresses SUBNET.1 to SUBNET.3. */
    static void pool(KubernetesClient client, String pool, String subnet) {
        pool(client, pool, subnet, 3);
    }

    /** COUNT Ready RDMA nodes POOL-1 to POOL-COUNT, the same way. */
    static void pool(KubernetesClient client, String pool, String subnet, int count) {
        for (int i = 1; i <= count; i++) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(pool + "-" + i).addToLabels(Names.RDMA_NODE_LABEL, "true")
                    .addToLabels("pool", pool).endMetadata()
                    .withNewStatus().addNewCondition().withType("Ready").withStatus("True").withReason("KubeletReady").endCondition()
                    .addNewAddress().withType("InternalIP").withAddress(subnet + "." + i).endAddress().endStatus().build()).create();
        }
    }

    /** A 2-node job in namespace ns on the nodes of a pool, with more of its spec after a comma. */
    static TrainingJob create(KubernetesClient client, String name, String pool, String extra) {
        return OperatorUnderTest.create(client, name, "{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, rdma: {devicesPerNode: 8},"
                + " podTemplate: {nodeSelector: {pool: " + pool + "}}" + extra + "}");
    }

    static TrainingJobStatus status(KubernetesClient client, String job) {
        return client.resources(TrainingJob.class).inNamespace("ns").withName(job).get().getStatus();
    }

    /** The job's members: its pods but its hot spares. */
    static List<Pod> pods(KubernetesClient client, String job) {
        return client.pods().inNamespace("ns").withLabel(Names.JOB_LABEL, job).list().getItems().stream()
                .filter(pod -> !"true".equals(pod.getMetadata().getLabels().get(Names.SPARE_LABEL))).toList();
    }

    /** The gang's pods of that attempt, once both run on a node, by name. */
    static Map<String, String> running(KubernetesClient client, String job, String attempt) {
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pods(client, job)).hasSize(2).allSatisfy(pod -> {
            assertThat(pod.getMetadata().getLabels()).containsEntry(Names.ATTEMPT_LABEL, attempt);
            assertThat(pod.getStatus() == null ? null : pod.getStatus().getPhase()).isEqualTo("Running");
        }));
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(status(client, job).phase).isEqualTo("Running"));
        Map<String, String> placement = new TreeMap<>();
        pods(client, job).forEach(pod -> placement.put(pod.getMetadata().getName(), pod.getSpec().getNodeName()));
        return placement;
    }

    /** Sets a node condition, replacing the one of its type, as having changed at {@code since}. */
    static void condition(KubernetesClient client, String node, String type, String status, String reason, String message, Instant since) {
        client.nodes().withName(node).edit(n -> {
            Node edited = new NodeBuilder(n).build();
            edited.getStatus().getConditions().removeIf(c -> c.getType().equals(type));
            edited.getStatus().getConditions().add(new NodeConditionBuilder().withType(type).withStatus(status).withReason(reason)
                    .withMessage(message).withLastTransitionTime(since.toString()).build());
            return edited;
        });
    }
}
