package io.railyard.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.railyard.api.TrainingJob;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Kubernetes' own gang (scheduling.k8s.io/v1beta1, 1.37) as the operator declares it; the real scheduler places it in WorkloadGangIT. */
class WorkloadGangModelTest {
    private static final OperatorDefaults SERVED = OperatorDefaults.STANDARD.withWorkloadGangs(true);
    private static final TrainingJob JOB = Jobs.yaml("""
            image: pytorch
            script: train.py
            nodes: 4
            gpusPerNode: 8
            spareNodes: 1
            runPolicy: {restartStrategy: InPlace}
            scheduling: {scheduler: kubernetes, priorityClassName: training-high}
            """);

    @Test
    void aWorkloadWithAGangOfTheRanksItsPodGroupAndEachMemberInIt() {
        List<HasMetadata> objects = TrainingJobModel.desired(JOB, SERVED.withInPlaceRestart(true)).objects();

        assertThat(objects).extracting(HasMetadata::getKind).containsExactly("Service", "NetworkPolicy", "Workload", "PodGroup", "Pod", "Pod", "Pod", "Pod");
        GenericKubernetesResource workload = (GenericKubernetesResource) objects.get(2);
        assertThat(workload.getApiVersion()).isEqualTo("scheduling.k8s.io/v1beta1");
        assertThat(Serialization.asJson(workload.getAdditionalProperties().get("spec"))).isEqualTo("{\"controllerRef\":{\"apiGroup\":"
                + "\"railyard.io\",\"kind\":\"TrainingJob\",\"name\":\"job\"},\"podGroupTemplates\":[{\"name\":\"ranks\",\"schedulingPolicy\":"
                + "{\"gang\":{\"minCount\":4}},\"disruptionMode\":{\"all\":{}},\"priorityClassName\":\"training-high\"}]}");
        GenericKubernetesResource group = (GenericKubernetesResource) objects.get(3);
        assertThat(group.getMetadata().getName()).isEqualTo("job");
        assertThat(group.getMetadata().getLabels()).containsEntry("railyard.io/job-name", "job");
        assertThat(Serialization.asJson(group.getAdditionalProperties().get("spec"))).isEqualTo("{\"workloadRef\":{\"workloadName\":\"job\","
                + "\"templateName\":\"ranks\"},\"schedulingPolicy\":{\"gang\":{\"minCount\":4}},\"disruptionMode\":{\"all\":{}},"
                + "\"priorityClassName\":\"training-high\"}");
        assertThat(objects.subList(4, 8)).allSatisfy(pod -> assertThat(Serialization.asJson(((Pod) pod).getSpec()))
                .contains("\"schedulingGroup\":{\"podGroupName\":\"job\"}"));
        assertThat(((Pod) objects.get(4)).getSpec().getSchedulerName()).as("kube-scheduler's own").isNull();
        Pod spare = PodModel.spare(JOB, JobSettings.of(JOB, SERVED), "job-spare-0", "img");
        assertThat(spare.getSpec().getAdditionalProperties()).as("a spare is placed alone, outside the gang").doesNotContainKey("schedulingGroup");
    }

    @Test
    void onAClusterThatDoesNotServeTheApiTheJobIsRefusedNamingWhatToTurnOn() {
        assertThat(TrainingJobModel.desired(JOB, OperatorDefaults.STANDARD).warnings()).anySatisfy(warning -> assertThat(warning)
                .isEqualTo("spec.scheduling.scheduler is kubernetes but this cluster does not serve scheduling.k8s.io/v1beta1 Workload and"
                        + " PodGroup (Kubernetes 1.37+ with the feature gate GenericWorkload on the API server and kube-scheduler, and"
                        + " --runtime-config scheduling.k8s.io/v1beta1=true): turn them on, or use volcano or kueue; the operator refuses the job"));
        assertThat(WorkloadGangModel.unserved(JOB.getSpec(), true)).isEmpty();
        assertThat(WorkloadGangModel.servedBy("v1.37.2")).isTrue();
        assertThat(WorkloadGangModel.servedBy("1.36")).isFalse();
    }

    @Test
    void aTopologyRequestIsTheGroupsConstraintAndAClusterThatDropsItRefusesTheJob() {
        TrainingJob leaf = Jobs.yaml("""
                image: pytorch
                script: train.py
                nodes: 4
                gpusPerNode: 8
                scheduling: {scheduler: kubernetes, topology: {level: railyard.io/ib-leaf}}
                """);
        List<HasMetadata> objects = TrainingJobModel.desired(leaf, SERVED).objects();
        GenericKubernetesResource workload = (GenericKubernetesResource) objects.stream().filter(o -> o.getKind().equals("Workload")).findFirst().orElseThrow();
        GenericKubernetesResource group = (GenericKubernetesResource) objects.stream().filter(o -> o.getKind().equals("PodGroup")).findFirst().orElseThrow();
        assertThat(Serialization.asJson(workload.getAdditionalProperties().get("spec")))
                .contains("\"schedulingConstraints\":{\"topology\":[{\"key\":\"railyard.io/ib-leaf\"}]}");
        assertThat(Serialization.asJson(group.getAdditionalProperties().get("spec")))
                .contains("\"schedulingConstraints\":{\"topology\":[{\"key\":\"railyard.io/ib-leaf\"}]}");

        // what a 1.37 API server returns with the gate TopologyAwareWorkloadScheduling off: the object, without the field
        GenericKubernetesResource stored = Serialization.clone(group);
        ((java.util.Map<?, ?>) stored.getAdditionalProperties().get("spec")).remove("schedulingConstraints");
        assertThat(WorkloadGangModel.dropped(group, stored)).hasValueSatisfying(problem -> assertThat(problem).startsWith(
                "spec.scheduling.topology: this cluster stored the PodGroup job without its topology constraint (kube-scheduler places"
                        + " a gang under one domain only with the feature gate TopologyAwareWorkloadScheduling"));
        assertThat(WorkloadGangModel.dropped(group, Serialization.clone(group))).isEmpty();
        assertThat(WorkloadGangModel.dropped(group, null)).as("there already").isEmpty();

        TrainingJob preferred = Jobs.yaml("""
                image: pytorch
                script: train.py
                nodes: 4
                gpusPerNode: 8
                scheduling: {scheduler: kubernetes, topology: {level: railyard.io/ib-leaf, mode: Preferred}}
                """);
        assertThat(JobValidation.errors(preferred)).contains("spec.scheduling.topology.mode: scheduler kubernetes places a gang under one"
                + " domain only as Required (its topology constraint has no preference); use Required, or scheduler kueue for Preferred");
    }
}
