package io.railyard.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.railyard.api.Names;
import org.junit.jupiter.api.Test;

/** The trainer's restart counts as the kubelet shows them around in-place restarts, against the operator's restart-base. */
class TrainerRestartsTest {

    private static Pod pod(String base, ContainerStatusBuilder trainer) {
        PodBuilder pod = new PodBuilder().withNewMetadata().withName("job-1").endMetadata().withNewStatus().withPhase("Running").endStatus();
        if (base != null) {
            pod.editMetadata().addToAnnotations(Names.RESTART_BASE_ANNOTATION, base).endMetadata();
        }
        if (trainer != null) {
            pod.editStatus().addToContainerStatuses(trainer.withName("trainer").build()).endStatus();
        }
        return pod.build();
    }

    private static ContainerStatusBuilder running(int restarts) {
        return new ContainerStatusBuilder().withRestartCount(restarts).withNewState().withNewRunning().withStartedAt("2026-12-06T01:00:00Z")
                .endRunning().endState();
    }

    private static ContainerStatusBuilder waitingAfter(int restarts, int exitCode) {
        return new ContainerStatusBuilder().withRestartCount(restarts).withNewState().withNewWaiting().withReason("PodInitializing").endWaiting()
                .endState().withNewLastState().withNewTerminated().withExitCode(exitCode).endTerminated().endLastState();
    }

    @Test
    void aRunningTrainerIsRestartedByTheMoveSoItsBaseIsOneMore() {
        assertThat(TrainerRestarts.nextBase(pod(null, running(0)))).isOne();
        assertThat(TrainerRestarts.nextBase(pod("1", running(1)))).isEqualTo(2);
    }

    @Test
    void aTrainerNotStartedOrWaitingInAwaitRankIsNotRestartedByTheMove() {
        assertThat(TrainerRestarts.nextBase(pod(null, null))).isZero();
        assertThat(TrainerRestarts.nextBase(pod("1", waitingAfter(2, 3)))).isEqualTo(2);
    }

    @Test
    void onlyACountAboveTheBaseIsTheTrainersOwnFailure() {
        assertThat(TrainerRestarts.ownFailure(pod("1", running(1)))).as("the old run's end, restarted by the move").isEmpty();
        assertThat(TrainerRestarts.ownFailure(pod("1", waitingAfter(2, 3)))).hasValueSatisfying(end -> assertThat(end.getExitCode()).isEqualTo(3));
        assertThat(TrainerRestarts.ownFailure(pod(null, waitingAfter(1, 137)))).as("a fresh pod's trainer that failed").isPresent();
        assertThat(TrainerRestarts.ownFailure(pod("2", waitingAfter(2, 3)))).as("already counted: moved on since").isEmpty();
    }
}
