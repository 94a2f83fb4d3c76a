package io.railyard.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A Kueue gang as its members declare it: the run's own pod group, and the job's topology request (KueueIT places them). */
class KueueGroupTest {
    private static TrainingJob job(String topology) {
        return Jobs.yaml("""
                image: pytorch
                script: train.py
                nodes: 2
                gpusPerNode: 8
                rdma: {devicesPerNode: 8}
                scheduling: {scheduler: kueue, queue: team-a%s}
                """.formatted(topology));
    }

    @Test
    void eachRunIsAGroupOfItsOwnAndTheMembersAskForTheLeafAsTheJobSays() {
        TrainingJob required = job(", topology: {level: railyard.io/ib-leaf}");
        required.setStatus(new TrainingJobStatus());
        required.getStatus().restarts = 3;

        List<Pod> pods = Jobs.pods(required);

        assertThat(pods).allSatisfy(pod -> {
            assertThat(pod.getMetadata().getLabels()).containsEntry("kueue.x-k8s.io/pod-group-name", "job-3")
                    .containsEntry("kueue.x-k8s.io/queue-name", "team-a");
            assertThat(pod.getMetadata().getAnnotations()).containsEntry("kueue.x-k8s.io/podset-required-topology", "railyard.io/ib-leaf")
                    .as("rank 0's pod set and the others' fitted as one").containsEntry("kueue.x-k8s.io/podset-group-name", "ranks")
                    .containsEntry("kueue.x-k8s.io/pod-group-total-count", "2");
        });
        assertThat(Jobs.pods(job(", topology: {level: railyard.io/ib-leaf, mode: Preferred}")).getFirst().getMetadata().getAnnotations())
                .containsEntry("kueue.x-k8s.io/podset-preferred-topology", "railyard.io/ib-leaf")
                .doesNotContainKey("kueue.x-k8s.io/podset-required-topology");
        assertThat(Jobs.pods(job("")).getFirst().getMetadata().getAnnotations()).doesNotContainKeys(
                "kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/podset-preferred-topology");
    }

    @Test
    void aTopologyRequestNeedsAGangSchedulerAndInPlaceIsRefusedForAKueueGang() {
        TrainingJob plain = Jobs.yaml("""
                image: pytorch
                script: train.py
                nodes: 2
                gpusPerNode: 8
                scheduling: {topology: {level: railyard.io/ib-leaf}}
                """);
        TrainingJob rack = Jobs.yaml("""
                image: pytorch
                script: train.py
                nodes: 2
                gpusPerNode: 8
                scheduling: {scheduler: volcano, topology: {level: topology.kubernetes.io/rack}}
                """);
        assertThat(JobValidation.errors(plain)).contains("spec.scheduling.topology: is placed by a gang scheduler: kueue (its Topology),"
                + " volcano (its HyperNodes) or kubernetes (its PodGroup's topology constraint); name one, or leave it out");
        assertThat(JobValidation.errors(rack)).contains("spec.scheduling.topology.level: with scheduler volcano, railyard.io/ib-leaf"
                + " (HyperNode tier 1) or railyard.io/ib-spine-group (tier 2), the tiers railyard fabric --hyper-nodes writes");
        TrainingJob inPlace = job("");
        inPlace.getSpec().runPolicy = new io.railyard.api.RunPolicy();
        inPlace.getSpec().runPolicy.restartStrategy = io.railyard.api.RunPolicy.RestartStrategy.IN_PLACE;
        assertThat(RestartStrategies.unserved(inPlace.getSpec(), true)).hasValueSatisfying(problem -> assertThat(problem)
                .startsWith("spec.runPolicy.restartStrategy is InPlace but scheduler kueue restarts a gang only by recreating it"));
        assertThat(RestartStrategies.inPlace(job("").getSpec(), true)).as("Auto on a Kueue gang: Recreate").isFalse();
    }
}
