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
        assertThat(served.getSpec().getInitContainers().stream().filter(c -> c.getName().equals(PodModel.AWAIT_RANK)).findFirst().orElseThrow()
                .getArgs()).contains("--attempt-file=/var/run/railyard/attempt", "--barrier-port=9405", "--nodes=" + job(null).getSpec().nodes)
                .anyMatch(arg -> arg.startsWith("--master-addr=" + job(null).getMetadata().getName() + "-0."));
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

    @Test
    void sparesArePodsOfTheSameShapeOutsideTheGangWithNoRankUntilPromoted() {
        TrainingJob job = Jobs.example("ib-volcano.yaml");
        job.getSpec().spareNodes = 2;
        Pod member = firstPod(job, NEW);

        List<Pod> spares = SparePods.missing(job, NEW, java.util.Set.of("llama-ib-spare-0"), 2);

        assertThat(spares).extracting(p -> p.getMetadata().getName()).containsExactly(job.getMetadata().getName() + "-spare-0",
                job.getMetadata().getName() + "-spare-1").doesNotContain("llama-ib-spare-0");
        Pod spare = spares.getFirst();
        assertThat(spare.getMetadata().getLabels()).containsEntry(io.railyard.api.Names.SPARE_LABEL, "true")
                .doesNotContainKeys(io.railyard.api.Names.INDEX_LABEL, io.railyard.api.Names.ATTEMPT_LABEL, io.railyard.api.Names.RANK_LABEL);
        assertThat(spare.getMetadata().getAnnotations()).as("outside the gang's PodGroup").doesNotContainKey(PodGroupModel.GROUP_NAME_ANNOTATION);
        assertThat(member.getMetadata().getAnnotations()).containsKey(PodGroupModel.GROUP_NAME_ANNOTATION);
        assertThat(spare.getSpec().getAffinity()).isEqualTo(member.getSpec().getAffinity());
        assertThat(spare.getSpec().getContainers().getFirst().getResources()).isEqualTo(member.getSpec().getContainers().getFirst().getResources());
        assertThat(spare.getSpec().getContainers().getFirst().getCommand()).startsWith("/bin/sh", "-c", ". /var/run/railyard/rank.env && exec torchrun \"$@\"");
        assertThat(spare.getSpec().getContainers().getFirst().getEnv()).extracting(e -> e.getName()).doesNotContain("PET_NODE_RANK", "PET_MASTER_ADDR");
        assertThat(spare.getSpec().getInitContainers().stream().filter(c -> c.getName().equals(PodModel.AWAIT_RANK)).findFirst().orElseThrow().getArgs())
                .contains("--env-file=/var/run/railyard/rank.env", "--attempt-file=/var/run/railyard/attempt");
        assertThat(SparePods.promotion(job, NEW, 3, 2)).isEqualTo("{\"metadata\":{\"labels\":{\"railyard.io/spare\":null,"
                + "\"railyard.io/job-index\":\"3\",\"railyard.io/attempt\":\"2\",\"railyard.io/rank\":\"3\"},\"annotations\":{"
                + "\"railyard.io/node-rank\":\"3\",\"railyard.io/master-addr\":\"gpt-pretrain-0.gpt-pretrain.training.svc\"}}}");
        assertThat(SparePods.desired(job, OLD)).as("no spares where the gang is recreated whole").isZero();
        assertThat(TrainingJobModel.desired(job, OLD).warnings()).anyMatch(w -> w.startsWith("spec.spareNodes is 2 but the gang is recreated whole"));
    }
}
