package io.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.api.Names;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * In-place restarts on the API server with their gates: it keeps every pod the operator builds for them (the restart
 * rules, the sidecar, the downward API), and a node fault moves the other ranks with one PATCH each. KWOK does not
 * restart containers, so the kubelet's side (the containers restarting) stays with the fast tier's played kubelet.
 */
@ExtendWith(RealCluster.class)
@Order(6)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InPlaceIT {
    private Installation railyard;
    private KubernetesClient client;
    private String namespace;

    @BeforeAll
    void nodes(Installation railyard) {
        this.railyard = railyard;
        this.client = railyard.cluster.admin;
        this.namespace = railyard.jobNamespace("inplace");
        for (int i = 1; i <= 3; i++) {
            KwokNodes.rdma(client, "inplace-rdma-" + i, "inplace");
        }
    }

    @Test
    void theApiServerKeepsTheRestartRulesAndANodeFaultMovesTheOtherRanksWithOnePatchEach() {
        String job = Jobs.yaml(namespace, "inplace", 3, "inplace").replace("backoffLimit: 2", "backoffLimit: 2\n    restartStrategy: InPlace");
        railyard.submit(job);
        List<Pod> running = Jobs.awaitRunning(client, namespace, "inplace", 3, Duration.ofSeconds(90));

        Container trainer = running.getFirst().getSpec().getContainers().stream().filter(c -> c.getName().equals("trainer")).findFirst().orElseThrow();
        assertThat(trainer.getRestartPolicyRules()).as("the trainer's restart rules, kept by the API server")
                .anySatisfy(rule -> assertThat(rule.getAction()).isEqualTo("RestartAllContainers"));
        assertThat(running.getFirst().getSpec().getInitContainers()).as("the sidecar that restarts the pod in place")
                .anySatisfy(c -> assertThat(c.getRestartPolicy()).isEqualTo("Always"));

        KwokNodes.rdma(client, "inplace-rdma-4", "inplace");
        Pod faulted = running.stream().filter(p -> !"0".equals(p.getMetadata().getLabels().get(Names.RANK_LABEL))).findFirst().orElseThrow();
        Set<String> kept = running.stream().filter(p -> p != faulted).map(p -> p.getMetadata().getName()).collect(Collectors.toSet());
        Instant fault = Instant.now();
        client.nodes().withName(faulted.getSpec().getNodeName()).editStatus(node -> {
            node.getStatus().getConditions().add(new NodeConditionBuilder().withType("RdmaPortDown").withStatus("True")
                    .withReason("PortNotActive").withMessage("mlx5_1 port 1 is DOWN").withLastTransitionTime(fault.toString()).build());
            return node;
        });

        Awaitility.await("every rank at attempt 1").atMost(Duration.ofSeconds(90)).until(() -> Jobs.pods(client, namespace, "inplace").stream()
                .filter(p -> "Running".equals(p.getStatus().getPhase()) && "1".equals(p.getMetadata().getLabels().get(Names.ATTEMPT_LABEL)))
                .count() == 3);
        List<Audit.Request> sinceFault = Audit.operatorRequests(railyard.cluster, fault); // the log read once
        Map<String, Long> patches = sinceFault.stream()
                .filter(r -> r.resource().equals("pods") && r.namespace().equals(namespace) && r.verb().equals("patch"))
                .collect(Collectors.groupingBy(Audit.Request::name, Collectors.counting()));
        assertThat(patches).as("patches of the kept pods after the fault").containsExactlyInAnyOrderEntriesOf(
                kept.stream().collect(Collectors.toMap(name -> name, name -> 1L)));
        List<Audit.Request> creates = sinceFault.stream()
                .filter(r -> r.resource().equals("pods") && r.namespace().equals(namespace) && r.verb().equals("create")).toList();
        assertThat(creates).as("pods created after the fault: the faulted rank's only").hasSize(1);
    }
}
