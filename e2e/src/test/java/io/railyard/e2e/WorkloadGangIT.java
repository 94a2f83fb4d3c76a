package io.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gangs placed by kube-scheduler itself (v1.37.2, its GangScheduling plugin) through the Workload and PodGroup of
 * scheduling.k8s.io/v1beta1 that the operator writes for {@code scheduler: kubernetes}: no add-on scheduler at all.
 */
@ExtendWith(RealCluster.class)
@Order(11)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WorkloadGangIT {
    /** Longer than kube-scheduler's wait at Permit for the rest of a gang, so that a partial placement would show. */
    private static final Duration HELD = Duration.ofSeconds(15);

    private Installation railyard;
    private KubernetesClient client;
    private String namespace;

    @BeforeAll
    void cluster(Installation railyard) {
        this.railyard = railyard;
        this.client = railyard.cluster.admin;
        this.namespace = railyard.jobNamespace("workload-gangs");
    }

    @Test
    void aGangWithRoomForThreeOfFourBindsNoneUntilAFourthNodeAppearsThenAllFour() {
        List.of("kg-whole-1", "kg-whole-2", "kg-whole-3").forEach(node -> KwokNodes.rdma(client, node, "kg-whole"));
        railyard.submit(Jobs.yaml(namespace, "whole", 4, "kg-whole", "kubernetes"));
        Awaitility.await("the operator's 4 pods of whole").atMost(Duration.ofSeconds(60)).until(() -> Jobs.pods(client, namespace, "whole").size() == 4);

        GenericKubernetesResource group = client.genericKubernetesResources("scheduling.k8s.io/v1beta1", "PodGroup").inNamespace(namespace)
                .withName("whole").get();
        assertThat(group).as("the job's PodGroup").isNotNull();
        assertThat(group.getAdditionalProperties().get("spec")).asString().contains("minCount=4");
        assertThat(client.genericKubernetesResources("scheduling.k8s.io/v1beta1", "Workload").inNamespace(namespace).withName("whole").get())
                .as("the job's Workload").isNotNull();
        assertThat(Jobs.pods(client, namespace, "whole")).allSatisfy(pod -> assertThat(pod.getSpec().getAdditionalProperties())
                .containsEntry("schedulingGroup", Map.of("podGroupName", "whole")));

        Awaitility.await("no pod of whole bound while 3 nodes have room").pollDelay(HELD).atMost(HELD.plusSeconds(5))
                .until(() -> Jobs.bound(Jobs.pods(client, namespace, "whole")) == 0);
        Processes.Result status = Awaitility.await("status says why, in kube-scheduler's words").atMost(Duration.ofSeconds(30))
                .until(() -> RailyardProcess.run(railyard.cluster, null, "status", "whole", "-n", namespace),
                        said -> said.out().contains("kube-scheduler: "));
        assertThat(status.out()).contains("0 of 4 pods have a node; kube-scheduler: ");

        KwokNodes.rdma(client, "kg-whole-4", "kg-whole");
        List<Pod> running = Jobs.awaitRunning(client, namespace, "whole", 4, Duration.ofSeconds(90));
        assertThat(running).extracting(pod -> pod.getSpec().getNodeName()).containsExactlyInAnyOrder("kg-whole-1", "kg-whole-2", "kg-whole-3", "kg-whole-4");
    }

    @Test
    void twoGangsThatFitAloneButNotTogetherOneRunsTheOtherWaitsWholeUntilTheFirstIsGone() {
        List.of("kg-pair-1", "kg-pair-2", "kg-pair-3", "kg-pair-4").forEach(node -> KwokNodes.rdma(client, node, "kg-pair"));
        railyard.submit(Jobs.yaml(namespace, "left", 3, "kg-pair", "kubernetes"));
        railyard.submit(Jobs.yaml(namespace, "right", 3, "kg-pair", "kubernetes"));

        Awaitility.await("one gang of three Running").atMost(Duration.ofSeconds(120)).until(() -> Jobs.running(client, namespace, "left") == 3 || Jobs.running(client, namespace, "right") == 3);
        String waiting = Jobs.running(client, namespace, "left") == 3 ? "right" : "left";
        Awaitility.await(waiting + " holds no node while the other runs").pollDelay(HELD).atMost(HELD.plusSeconds(5))
                .until(() -> Jobs.pods(client, namespace, waiting).size() == 3 && Jobs.bound(Jobs.pods(client, namespace, waiting)) == 0);

        String ran = waiting.equals("left") ? "right" : "left";
        client.resources(TrainingJob.class).inNamespace(namespace).withName(ran).delete();
        Jobs.awaitRunning(client, namespace, waiting, 3, Duration.ofSeconds(120));
    }

    @Test
    void aNodeFaultReplacesTheRankWhoseNodeFailedAndKubeSchedulerPlacesItOffTheNodeInTheSameGroup() {
        List.of("kg-fault-1", "kg-fault-2", "kg-fault-3").forEach(node -> KwokNodes.rdma(client, node, "kg-fault"));
        railyard.submit(Jobs.yaml(namespace, "fault", 2, "kg-fault", "kubernetes"));
        List<Pod> running = Jobs.awaitRunning(client, namespace, "fault", 2, Duration.ofSeconds(90));
        String bad = running.getFirst().getSpec().getNodeName();

        KwokNodes.portDown(client, bad);

        List<Pod> again = Awaitility.await("every rank Running on the next attempt").atMost(Duration.ofSeconds(120)).until(() -> Jobs.pods(client,
                namespace, "fault").stream().filter(pod -> "Running".equals(pod.getStatus().getPhase())
                        && "1".equals(pod.getMetadata().getLabels().get(Names.ATTEMPT_LABEL))).toList(), pods -> pods.size() == 2);
        assertThat(again).extracting(pod -> pod.getSpec().getNodeName()).doesNotContain(bad);
        assertThat(again).allSatisfy(pod -> assertThat(pod.getSpec().getAdditionalProperties())
                .containsEntry("schedulingGroup", Map.of("podGroupName", "fault")));
        TrainingJobStatus.Restart restart = Jobs.get(client, namespace, "fault").getStatus().restartHistory.getFirst();
        assertThat(restart.cause + " " + restart.node).isEqualTo("Node " + bad);
        assertThat(restart.restartedInPlace).as("the healthy rank kept in place: the scheduler asked only for the other").isEqualTo(1);
    }

    @Test
    void theFabricsLeavesPlaceAGangUnderTheLeafWithRoomAndNoneWhenNoLeafHasRoom() {
        // the labels railyard fabric writes from the shipped ibsim fat-tree; here leaf rails-leaf-01 has 3 of its hosts,
        // rails-leaf-03 all 4
        Map<String, Map<String, String>> hosts = new FabricNodes(railyard.cluster, "kg-topo").nodes("kg-topo", java.util.Set.of("kg-topo-04"));

        railyard.submit(Jobs.topology(Jobs.yaml(namespace, "rail", 4, "kg-topo", "kubernetes"), "railyard.io/ib-leaf", "Required"));
        List<Pod> rail = Jobs.awaitRunning(client, namespace, "rail", 4, Duration.ofSeconds(90));
        assertThat(rail).extracting(pod -> hosts.get(pod.getSpec().getNodeName()).get("railyard.io/ib-leaf")).as("the one leaf with room")
                .containsOnly("rails-leaf-03");
        assertThat(client.genericKubernetesResources("scheduling.k8s.io/v1beta1", "PodGroup").inNamespace(namespace).withName("rail").get()
                .getAdditionalProperties().get("spec")).asString().contains("schedulingConstraints={topology=[{key=railyard.io/ib-leaf}]}");
        client.resources(TrainingJob.class).inNamespace(namespace).withName("rail").delete();
        Awaitility.await("rail's pods gone").atMost(Duration.ofSeconds(60)).until(() -> Jobs.pods(client, namespace, "rail").isEmpty());

        railyard.submit(Jobs.topology(Jobs.yaml(namespace, "wide", 5, "kg-topo", "kubernetes"), "railyard.io/ib-leaf", "Required"));
        Awaitility.await("no pod of wide bound: no leaf has 5").pollDelay(HELD).atMost(HELD.plusSeconds(5))
                .until(() -> Jobs.pods(client, namespace, "wide").size() == 5 && Jobs.bound(Jobs.pods(client, namespace, "wide")) == 0);
        Processes.Result status = Awaitility.await("status says why, in kube-scheduler's words").atMost(Duration.ofSeconds(30))
                .until(() -> RailyardProcess.run(railyard.cluster, null, "status", "wide", "-n", namespace),
                        said -> said.out().contains("kube-scheduler: "));
        assertThat(status.out()).contains("0 of 5 pods have a node");
    }
}
