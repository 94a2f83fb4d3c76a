package io.railyard.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.railyard.api.RunPolicy;
import io.railyard.api.TrainingJob;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which pods a job's restart strategy builds, on clusters that do and do not restart pods in place. */
class RestartStrategiesTest {
    private static final OperatorDefaults OLD = new OperatorDefaults("img", "rdma/rdma");
    private static final OperatorDefaults NEW = OLD.withInPlaceRestart(true);

    private static Pod firstPod(TrainingJob job, OperatorDefaults defaults) {
        return TrainingJobModel.desired(job, defaults).objects().stream().filter(Pod.class::isInstance).map(Pod.class::cast).findFirst().orElseThrow();
    }

    private static List<String> initContainers(Pod pod) {
        return pod.getSpec().getInitContainers().stream().map(Container::getName).toList();
    }

    private static TrainingJob job(RunPolicy.RestartStrategy strategy) {
        TrainingJob job = Jobs.example("llama70b-roce.yaml");
        job.getSpec().runPolicy = new RunPolicy();
        job.getSpec().runPolicy.restartStrategy = strategy;
        return job;
    }

    @Test
    void kubernetes136AndLaterRestartPodsInPlace() {
        assertThat(List.of("1.36", "v1.36.0", "v1.37.2-eks-1", "2.0")).allMatch(RestartStrategies::servedBy);
        assertThat(List.of("1.35", "v1.35.9", "v1.9.0", "", "unknown")).noneMatch(RestartStrategies::servedBy);
    }

    @Test
    void autoIsInPlaceWhereTheClusterServesItAndRecreateElsewhere() {
        Pod served = firstPod(job(null), NEW);
        Pod old = firstPod(job(null), OLD);
        Pod recreate = firstPod(job(RunPolicy.RestartStrategy.RECREATE), NEW);

        assertThat(initContainers(served)).containsSubsequence(PodModel.AWAIT_RANK, RestartStrategies.RESTART_WATCH);
        assertThat(served.getSpec().getVolumes()).anySatisfy(v -> assertThat(v.getName()).isEqualTo("pod-info"));
        assertThat(initContainers(old)).doesNotContain(PodModel.AWAIT_RANK, RestartStrategies.RESTART_WATCH);
        assertThat(initContainers(recreate)).doesNotContain(PodModel.AWAIT_RANK, RestartStrategies.RESTART_WATCH);
        assertThat(old.getSpec().getContainers().getFirst().getRestartPolicy()).isNull();
    }

    @Test
    void inPlaceOnlyWhereServed() {
        assertThat(RestartStrategies.unserved(job(RunPolicy.RestartStrategy.IN_PLACE).getSpec(), false)).isPresent();
        assertThat(RestartStrategies.unserved(job(RunPolicy.RestartStrategy.IN_PLACE).getSpec(), true)).isEmpty();
        assertThat(RestartStrategies.unserved(job(null).getSpec(), false)).as("Auto falls back").isEmpty();
        assertThat(TrainingJobModel.desired(job(RunPolicy.RestartStrategy.IN_PLACE), OLD).warnings())
                .anyMatch(w -> w.endsWith("the pods are shown as Recreate makes them"));
    }
}
