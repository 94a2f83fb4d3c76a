package io.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.api.TrainingJob;
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
 * Gangs placed by the real Volcano scheduler (v1.14.1) through the PodGroups the operator writes: all or nothing, by
 * queue, and within one HyperNode of those railyard fabric writes.
 */
@ExtendWith(RealCluster.class)
@Order(9)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VolcanoIT {
    /** Long enough for several of Volcano's scheduling cycles (1 s each) to have placed what they would. */
    private static final Duration HELD = Duration.ofSeconds(10);

    private Installation railyard;
    private KubernetesClient client;
    private String namespace;

    @BeforeAll
    void volcano(Installation railyard) {
        if (!railyard.cluster.volcano) {
            String message = "Volcano is not built: tools/control-plane build --with volcano (.ci/run does)";
            if (System.getenv("RAILYARD_CI") != null) {
                Assertions.fail(message);
            }
            Assumptions.abort(message);
        }
        this.railyard = railyard;
        this.client = railyard.cluster.admin;
        this.namespace = railyard.jobNamespace("volcano");
    }

    @Test
    void aGangWithRoomForThreeOfFourPlacesNoneUntilAFourthNodeAppearsThenAllFour() {
        List.of("vc-whole-1", "vc-whole-2", "vc-whole-3").forEach(node -> KwokNodes.rdma(client, node, "vc-whole"));
        railyard.submit(Jobs.yaml(namespace, "whole", 4, "vc-whole", "volcano"));
        Awaitility.await("the operator's 4 pods of whole").atMost(Duration.ofSeconds(60)).until(() -> Jobs.pods(client, namespace, "whole").size() == 4);

        Awaitility.await("no pod of whole bound while 3 nodes have room").pollDelay(HELD).atMost(HELD.plusSeconds(5))
                .until(() -> Jobs.bound(Jobs.pods(client, namespace, "whole")) == 0);
        Processes.Result status = Awaitility.await("status says why, in Volcano's words").atMost(Duration.ofSeconds(30))
                .until(() -> RailyardProcess.run(railyard.cluster, null, "status", "whole", "-n", namespace),
                        said -> said.out().contains("tasks in gang unschedulable"));
        assertThat(status.out()).contains("scheduled 0 of 4").contains("0 of 4 pods have a node; volcano: ");

        KwokNodes.rdma(client, "vc-whole-4", "vc-whole");
        List<Pod> running = Jobs.awaitRunning(client, namespace, "whole", 4, Duration.ofSeconds(90));
        assertThat(running).extracting(pod -> pod.getSpec().getNodeName()).containsExactlyInAnyOrder("vc-whole-1", "vc-whole-2", "vc-whole-3", "vc-whole-4");
        assertThat(running).allSatisfy(pod -> assertThat(pod.getSpec().getSchedulerName()).isEqualTo("volcano"));
    }

    @Test
    void twoGangsThatFitAloneButNotTogetherOneRunsTheOtherWaitsWholeUntilTheFirstIsGone() {
        List.of("vc-pair-1", "vc-pair-2", "vc-pair-3", "vc-pair-4").forEach(node -> KwokNodes.rdma(client, node, "vc-pair"));
        railyard.submit(Jobs.yaml(namespace, "left", 3, "vc-pair", "volcano"));
        railyard.submit(Jobs.yaml(namespace, "right", 3, "vc-pair", "volcano"));

        Awaitility.await("one gang of three Running").atMost(Duration.ofSeconds(90)).until(() -> Jobs.running(client, namespace, "left") == 3 || Jobs.running(client, namespace, "right") == 3);
        String waiting = Jobs.running(client, namespace, "left") == 3 ? "right" : "left";
        Awaitility.await(waiting + " holds no node while the other runs").pollDelay(HELD).atMost(HELD.plusSeconds(5))
                .until(() -> Jobs.bound(Jobs.pods(client, namespace, waiting)) == 0);

        String ran = waiting.equals("left") ? "right" : "left";
        client.resources(TrainingJob.class).inNamespace(namespace).withName(ran).delete(); // its PodGroup goes with it
        Jobs.awaitRunning(client, namespace, waiting, 3, Duration.ofSeconds(90));
        Awaitility.await("the PodGroup of " + ran + " deleted").atMost(Duration.ofSeconds(30))
                .until(() -> client.genericKubernetesResources("scheduling.volcano.sh/v1beta1", "PodGroup").inNamespace(namespace)
                        .withName(ran).get() == null);
    }

    @Test
    void aQueueFullWithOneJobAdmitsTheNextOnlyWhenTheFirstHasFinished() {
        List.of("vc-queue-1", "vc-queue-2", "vc-queue-3", "vc-queue-4").forEach(node -> KwokNodes.rdma(client, node, "vc-queue"));
        client.resource(new GenericKubernetesResourceBuilder().withApiVersion("scheduling.volcano.sh/v1beta1").withKind("Queue")
                .withNewMetadata().withName("two-nodes").endMetadata()
                .addToAdditionalProperties("spec", Map.of("weight", 1, "reclaimable", false, "capability", Map.of("nvidia.com/gpu", "16")))
                .build()).create();
        railyard.submit(Jobs.yaml(namespace, "first", 2, "vc-queue", "volcano", "two-nodes"));
        List<Pod> first = Jobs.awaitRunning(client, namespace, "first", 2, Duration.ofSeconds(90));
        railyard.submit(Jobs.yaml(namespace, "second", 2, "vc-queue", "volcano", "two-nodes"));

        Awaitility.await("second holds no node while first fills the queue, two nodes free").pollDelay(HELD).atMost(HELD.plusSeconds(5))
                .until(() -> Jobs.pods(client, namespace, "second").size() == 2 && Jobs.bound(Jobs.pods(client, namespace, "second")) == 0);
        first.forEach(pod -> KwokNodes.exit(client, namespace, pod.getMetadata().getName(), 0));
        Awaitility.await("first Succeeded").atMost(Duration.ofSeconds(60))
                .until(() -> "Succeeded".equals(Jobs.get(client, namespace, "first").getStatus().phase));
        Jobs.awaitRunning(client, namespace, "second", 2, Duration.ofSeconds(90));
    }

    @Test
    void theFabricsHyperNodesPlaceAHardGangUnderTheLeafWithRoomAndASoftOneAcrossWhenNoneHasRoom() {
        // the HyperNodes railyard fabric writes from the shipped ibsim fat-tree; here leaf rails-leaf-01 has 3 of its hosts,
        // rails-leaf-03 all 4
        FabricNodes fabric = new FabricNodes(railyard.cluster, "vc-topo");
        fabric.apply("--hyper-nodes");
        Map<String, Map<String, String>> hosts = fabric.nodes("vc-topo", java.util.Set.of("vc-topo-04"));

        railyard.submit(Jobs.topology(Jobs.yaml(namespace, "rail", 4, "vc-topo", "volcano"), "railyard.io/ib-leaf", "Required"));
        List<Pod> rail = Jobs.awaitRunning(client, namespace, "rail", 4, Duration.ofSeconds(90));
        assertThat(rail).extracting(pod -> hosts.get(pod.getSpec().getNodeName()).get("railyard.io/ib-leaf")).as("the one leaf with room")
                .containsOnly("rails-leaf-03");

        railyard.submit(Jobs.topology(Jobs.yaml(namespace, "strict", 3, "vc-topo", "volcano"), "railyard.io/ib-leaf", "Required"));
        List<Pod> strict = Jobs.awaitRunning(client, namespace, "strict", 3, Duration.ofSeconds(90));
        assertThat(strict).extracting(pod -> hosts.get(pod.getSpec().getNodeName()).get("railyard.io/ib-leaf")).as("the other leaf's 3")
                .containsOnly("rails-leaf-01");
        client.resources(TrainingJob.class).inNamespace(namespace).withName("strict").delete();
        client.resources(TrainingJob.class).inNamespace(namespace).withName("rail").delete();
        Awaitility.await("rail's and strict's pods gone").atMost(Duration.ofSeconds(60))
                .until(() -> Jobs.pods(client, namespace, "rail").isEmpty() && Jobs.pods(client, namespace, "strict").isEmpty());

        railyard.submit(Jobs.topology(Jobs.yaml(namespace, "wide", 5, "vc-topo", "volcano"), "railyard.io/ib-leaf", "Required"));
        Awaitility.await("no pod of wide bound: no leaf has 5").pollDelay(HELD).atMost(HELD.plusSeconds(5))
                .until(() -> Jobs.pods(client, namespace, "wide").size() == 5 && Jobs.bound(Jobs.pods(client, namespace, "wide")) == 0);
        Processes.Result status = Awaitility.await("status says why, in Volcano's words").atMost(Duration.ofSeconds(30))
                .until(() -> RailyardProcess.run(railyard.cluster, null, "status", "wide", "-n", namespace), said -> said.out().contains("volcano: "));
        assertThat(status.out()).contains("0 of 5 pods have a node");
        client.resources(TrainingJob.class).inNamespace(namespace).withName("wide").delete();

        railyard.submit(Jobs.topology(Jobs.yaml(namespace, "loose", 5, "vc-topo", "volcano"), "railyard.io/ib-leaf", "Preferred"));
        List<Pod> loose = Jobs.awaitRunning(client, namespace, "loose", 5, Duration.ofSeconds(90));
        assertThat(loose).extracting(pod -> hosts.get(pod.getSpec().getNodeName()).get("railyard.io/ib-leaf")).as("no leaf has 5: both")
                .contains("rails-leaf-01", "rails-leaf-03");
    }
}
