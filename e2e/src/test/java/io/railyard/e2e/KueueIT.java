package io.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gangs queued and admitted by the real Kueue (v0.19.2) as the pod groups the operator declares: each test's own
 * ClusterQueue, its flavor on the test's nodes with a topology, so that Kueue's topology-aware scheduling admits a gang
 * only where all its pods fit.
 */
@ExtendWith(RealCluster.class)
@Order(10)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KueueIT {
    /** Long enough for Kueue to have admitted what it would (it retries a pending workload within a second or two). */
    private static final Duration HELD = Duration.ofSeconds(10);
    private static final String KUEUE = "kueue.x-k8s.io/v1beta2";
    private static final String TOPOLOGY = "e2e-hosts";

    private Installation railyard;
    private KubernetesClient client;
    private String namespace;

    @BeforeAll
    void kueue(Installation railyard) {
        if (!railyard.cluster.kueue) {
            String message = "Kueue is not built: tools/control-plane build --with kueue (.ci/run does)";
            if (System.getenv("RAILYARD_CI") != null) {
                Assertions.fail(message);
            }
            Assumptions.abort(message);
        }
        this.railyard = railyard;
        this.client = railyard.cluster.admin;
        this.namespace = railyard.jobNamespace("kueue");
        client.resource(kueue("Topology", TOPOLOGY, Map.of("levels", List.of(Map.of("nodeLabel", "kubernetes.io/hostname"))))).serverSideApply();
        for (Map.Entry<String, Integer> priority : Map.of("e2e-low", 100, "e2e-high", 1000).entrySet()) {
            client.resource(new PriorityClassBuilder().withNewMetadata().withName(priority.getKey()).endMetadata()
                    .withValue(priority.getValue()).build()).serverSideApply();
        }
    }

    @Test
    void aGangWithRoomForThreeOfFourIsNotAdmittedUntilAFourthNodeAppearsThenAllFourRun() {
        List.of("kq-whole-1", "kq-whole-2", "kq-whole-3").forEach(node -> KwokNodes.rdma(client, node, "kq-whole"));
        queue("kq-whole", 64);
        railyard.submit(Jobs.yaml(namespace, "whole", 4, "kq-whole", "kueue", "kq-whole"));
        Awaitility.await("the operator's 4 pods of whole").atMost(Duration.ofSeconds(60)).until(() -> Jobs.pods(client, namespace, "whole").size() == 4);

        Awaitility.await("no pod of whole bound while 3 nodes have room").pollDelay(HELD).atMost(HELD.plusSeconds(5))
                .until(() -> Jobs.bound(Jobs.pods(client, namespace, "whole")) == 0);
        assertThat(Jobs.pods(client, namespace, "whole")).allSatisfy(pod -> assertThat(pod.getSpec().getSchedulingGates())
                .as("Kueue holds the pod until it admits the gang").anyMatch(gate -> gate.getName().equals("kueue.x-k8s.io/admission")));
        Processes.Result status = Awaitility.await("status says why, in Kueue's words").atMost(Duration.ofSeconds(30))
                .until(() -> RailyardProcess.run(railyard.cluster, null, "status", "whole", "-n", namespace),
                        said -> said.out().contains("kueue: couldn't assign flavors"));
        assertThat(status.out()).contains("0 of 4 pods have a node; kueue: ");

        KwokNodes.rdma(client, "kq-whole-4", "kq-whole");
        List<Pod> running = Jobs.awaitRunning(client, namespace, "whole", 4, Duration.ofSeconds(90));
        assertThat(running).extracting(pod -> pod.getSpec().getNodeName()).containsExactlyInAnyOrder("kq-whole-1", "kq-whole-2", "kq-whole-3", "kq-whole-4");
    }

    @Test
    void twoGangsThatFitAloneButNotTogetherOneRunsTheOtherWaitsWholeUntilTheFirstIsGone() {
        List.of("kq-pair-1", "kq-pair-2", "kq-pair-3", "kq-pair-4").forEach(node -> KwokNodes.rdma(client, node, "kq-pair"));
        queue("kq-pair", 64);
        railyard.submit(Jobs.yaml(namespace, "left", 3, "kq-pair", "kueue", "kq-pair"));
        railyard.submit(Jobs.yaml(namespace, "right", 3, "kq-pair", "kueue", "kq-pair"));

        Awaitility.await("one gang of three Running").atMost(Duration.ofSeconds(90)).until(() -> Jobs.running(client, namespace, "left") == 3 || Jobs.running(client, namespace, "right") == 3);
        String waiting = Jobs.running(client, namespace, "left") == 3 ? "right" : "left";
        Awaitility.await(waiting + " holds no node while the other runs").pollDelay(HELD).atMost(HELD.plusSeconds(5))
                .until(() -> Jobs.pods(client, namespace, waiting).size() == 3 && Jobs.bound(Jobs.pods(client, namespace, waiting)) == 0);

        String ran = waiting.equals("left") ? "right" : "left";
        client.resources(TrainingJob.class).inNamespace(namespace).withName(ran).delete();
        Jobs.awaitRunning(client, namespace, waiting, 3, Duration.ofSeconds(90));
    }

    @Test
    void aClusterQueueWithQuotaForOneJobAdmitsTheNextOnlyWhenTheFirstHasFinished() {
        List.of("kq-quota-1", "kq-quota-2", "kq-quota-3", "kq-quota-4").forEach(node -> KwokNodes.rdma(client, node, "kq-quota"));
        queue("kq-quota", 16);
        railyard.submit(Jobs.yaml(namespace, "first", 2, "kq-quota", "kueue", "kq-quota"));
        List<Pod> first = Jobs.awaitRunning(client, namespace, "first", 2, Duration.ofSeconds(90));
        railyard.submit(Jobs.yaml(namespace, "second", 2, "kq-quota", "kueue", "kq-quota"));

        Awaitility.await("second holds no node while first uses the quota, two nodes free").pollDelay(HELD).atMost(HELD.plusSeconds(5))
                .until(() -> Jobs.pods(client, namespace, "second").size() == 2 && Jobs.bound(Jobs.pods(client, namespace, "second")) == 0);
        first.forEach(pod -> KwokNodes.exit(client, namespace, pod.getMetadata().getName(), 0));
        Awaitility.await("first Succeeded").atMost(Duration.ofSeconds(60))
                .until(() -> "Succeeded".equals(Jobs.get(client, namespace, "first").getStatus().phase));
        Jobs.awaitRunning(client, namespace, "second", 2, Duration.ofSeconds(90));
    }

    @Test
    void aHigherPriorityJobPreemptsALowerOneWholeAndTheOperatorRecordsAPreemptionNotAFailure() {
        List.of("kq-preempt-1", "kq-preempt-2", "kq-preempt-3", "kq-preempt-4").forEach(node -> KwokNodes.rdma(client, node, "kq-preempt"));
        queue("kq-preempt", 16);
        railyard.submit(priority(Jobs.yaml(namespace, "low", 2, "kq-preempt", "kueue", "kq-preempt"), "e2e-low"));
        Jobs.awaitRunning(client, namespace, "low", 2, Duration.ofSeconds(90));
        railyard.submit(priority(Jobs.yaml(namespace, "high", 2, "kq-preempt", "kueue", "kq-preempt"), "e2e-high"));

        List<Pod> high = Jobs.awaitRunning(client, namespace, "high", 2, Duration.ofSeconds(120));
        TrainingJob low = Awaitility.await("low restarted for the preemption").atMost(Duration.ofSeconds(60))
                .until(() -> Jobs.get(client, namespace, "low"), job -> job.getStatus().restartHistory != null && !job.getStatus().restartHistory.isEmpty());
        TrainingJobStatus.Restart restart = low.getStatus().restartHistory.getFirst();
        assertThat(restart.cause).isEqualTo("Preemption");
        assertThat(restart.reason).isEqualTo("Preempted");
        assertThat(restart.message).contains("Preempted");
        assertThat(low.getStatus().jobFailures == null ? 0 : low.getStatus().jobFailures).as("backoffLimit not spent").isZero();
        assertThat(Jobs.condition(client, namespace, "low", "Restarting")).hasValueSatisfying(c -> assertThat(c.getReason()).isEqualTo("Preempted"));
        Awaitility.await("low waits whole while high runs").pollDelay(HELD).atMost(HELD.plusSeconds(5))
                .until(() -> Jobs.pods(client, namespace, "low").size() == 2 && Jobs.bound(Jobs.pods(client, namespace, "low")) == 0);

        high.forEach(pod -> KwokNodes.exit(client, namespace, pod.getMetadata().getName(), 0));
        Jobs.awaitRunning(client, namespace, "low", 2, Duration.ofSeconds(120));
    }

    @Test
    void aNodeFaultRecreatesTheGangAsANewGroupThatKueueAdmitsOffTheNode() {
        List.of("kq-fault-1", "kq-fault-2", "kq-fault-3").forEach(node -> KwokNodes.rdma(client, node, "kq-fault"));
        queue("kq-fault", 64);
        railyard.submit(Jobs.yaml(namespace, "fault", 2, "kq-fault", "kueue", "kq-fault"));
        List<Pod> running = Jobs.awaitRunning(client, namespace, "fault", 2, Duration.ofSeconds(90));
        assertThat(running).allSatisfy(pod -> assertThat(pod.getMetadata().getLabels()).containsEntry("kueue.x-k8s.io/pod-group-name", "fault-0"));
        String bad = running.getFirst().getSpec().getNodeName();

        KwokNodes.portDown(client, bad);

        List<Pod> again = Awaitility.await("the gang's second run Running").atMost(Duration.ofSeconds(120)).until(() -> Jobs.pods(client, namespace, "fault")
                .stream().filter(pod -> "Running".equals(pod.getStatus().getPhase()) && "1".equals(pod.getMetadata().getLabels().get(Names.ATTEMPT_LABEL)))
                .toList(), pods -> pods.size() == 2);
        assertThat(again).allSatisfy(pod -> {
            assertThat(pod.getSpec().getNodeName()).as("placed off the faulted node").isNotEqualTo(bad);
            assertThat(pod.getMetadata().getLabels()).as("a group of its own, admitted afresh").containsEntry("kueue.x-k8s.io/pod-group-name", "fault-1");
        });
        TrainingJobStatus.Restart restart = Jobs.get(client, namespace, "fault").getStatus().restartHistory.getFirst();
        assertThat(restart.cause + " " + restart.strategy + " " + restart.node).isEqualTo("Node Recreate " + bad);
        Awaitility.await("the first run's Workload finished and gone with its pods").atMost(Duration.ofSeconds(60))
                .until(() -> client.genericKubernetesResources(KUEUE, "Workload").inNamespace(namespace).withName("fault-0").get() == null);
    }

    @Test
    void theFabricsLeavesPlaceARequiredGangUnderTheLeafWithRoomAndAPreferredOneAcrossWhenNoneHasRoom() {
        // the labels and the Kueue Topology railyard fabric writes from the shipped ibsim fat-tree; here leaf rails-leaf-01
        // has 3 of its hosts, rails-leaf-03 all 4
        FabricNodes fabric = new FabricNodes(railyard.cluster, "kq-topo");
        fabric.apply("--kueue-topology");
        Map<String, Map<String, String>> hosts = fabric.nodes("kq-topo", java.util.Set.of("kq-topo-04"));
        queue("kq-topo", 64, "railyard-infiniband");

        railyard.submit(Jobs.topology(Jobs.yaml(namespace, "rail", 4, "kq-topo", "kueue", "kq-topo"), "railyard.io/ib-leaf", "Required"));
        List<Pod> rail = Jobs.awaitRunning(client, namespace, "rail", 4, Duration.ofSeconds(90));
        assertThat(rail).extracting(pod -> hosts.get(pod.getSpec().getNodeName()).get("railyard.io/ib-leaf")).as("the one leaf with room")
                .containsOnly("rails-leaf-03");

        railyard.submit(Jobs.topology(Jobs.yaml(namespace, "strict", 4, "kq-topo", "kueue", "kq-topo"), "railyard.io/ib-leaf", "Required"));
        Processes.Result status = Awaitility.await("strict waits, in Kueue's words").atMost(Duration.ofSeconds(60))
                .until(() -> RailyardProcess.run(railyard.cluster, null, "status", "strict", "-n", namespace),
                        said -> said.out().contains("kueue: couldn't assign flavors"));
        assertThat(status.out()).contains("0 of 4 pods have a node");
        assertThat(Jobs.bound(Jobs.pods(client, namespace, "strict"))).isZero();
        client.resources(TrainingJob.class).inNamespace(namespace).withName("strict").delete();
        client.resources(TrainingJob.class).inNamespace(namespace).withName("rail").delete();
        Awaitility.await("rail's pods gone").atMost(Duration.ofSeconds(60)).until(() -> Jobs.pods(client, namespace, "rail").isEmpty());

        railyard.submit(Jobs.topology(Jobs.yaml(namespace, "loose", 5, "kq-topo", "kueue", "kq-topo"), "railyard.io/ib-leaf", "Preferred"));
        List<Pod> loose = Jobs.awaitRunning(client, namespace, "loose", 5, Duration.ofSeconds(90));
        assertThat(loose).extracting(pod -> hosts.get(pod.getSpec().getNodeName()).get("railyard.io/ib-leaf")).as("no leaf has 5: both")
                .contains("rails-leaf-01", "rails-leaf-03");
    }

    /**
     * A ClusterQueue of {@code gpus} on the group's nodes (a flavor with the hosts' topology), and its LocalQueue here; it
     * covers CPU and memory too, which the pods' sidecars ask for (Kueue admits nothing that asks for a resource it does
     * not cover).
     */
    private void queue(String group, int gpus) {
        queue(group, gpus, TOPOLOGY);
    }

    private void queue(String group, int gpus, String topology) {
        client.resource(kueue("ResourceFlavor", group, Map.of("nodeLabels", Map.of(KwokNodes.GROUP, group), "topologyName", topology)))
                .serverSideApply();
        client.resource(kueue("ClusterQueue", group, Map.of("namespaceSelector", Map.of(),
                "preemption", Map.of("withinClusterQueue", "LowerPriority"),
                "resourceGroups", List.of(Map.of("coveredResources", List.of("nvidia.com/gpu", "rdma/rdma", "cpu", "memory"),
                        "flavors", List.of(Map.of("name", group, "resources", List.of(Map.of("name", "nvidia.com/gpu", "nominalQuota", gpus),
                                Map.of("name", "rdma/rdma", "nominalQuota", gpus), Map.of("name", "cpu", "nominalQuota", "1000"),
                                Map.of("name", "memory", "nominalQuota", "16Ti"))))))))).serverSideApply();
        GenericKubernetesResource local = kueue("LocalQueue", group, Map.of("clusterQueue", group));
        local.getMetadata().setNamespace(namespace);
        client.resource(local).serverSideApply();
    }

    private static GenericKubernetesResource kueue(String kind, String name, Map<String, Object> spec) {
        return new GenericKubernetesResourceBuilder().withApiVersion(KUEUE).withKind(kind).withNewMetadata().withName(name).endMetadata()
                .addToAdditionalProperties("spec", spec).build();
    }

    private static String priority(String job, String priorityClass) {
        return job.replace("  scheduling:\n", "  scheduling:\n    priorityClassName: " + priorityClass + "\n");
    }
}
