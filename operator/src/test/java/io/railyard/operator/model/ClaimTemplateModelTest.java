package io.railyard.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.railyard.api.TrainingJob;
import org.junit.jupiter.api.Test;

/** rdma.allocation: dra — the claim template, the pods' claim, and what the trainer no longer requests. */
class ClaimTemplateModelTest {
    private static ResourceClaimTemplate template(TrainingJob job) {
        return Jobs.render(job).stream().filter(ResourceClaimTemplate.class::isInstance).map(ResourceClaimTemplate.class::cast).findFirst().orElseThrow();
    }

    @Test
    void nicsFromADraClaimReplaceTheExtendedResource() {
        TrainingJob job = Jobs.yaml("{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, rdma: {allocation: dra, devicesPerNode: 4},"
                + " preflight: {}}");

        ResourceClaimTemplate template = template(job);
        assertThat(template.getMetadata().getName()).isEqualTo("job-rdma");
        assertThat(template.getMetadata().getLabels()).containsEntry("railyard.io/job-name", "job");
        assertThat(template.getSpec().getSpec().getDevices().getRequests()).singleElement().satisfies(request -> {
            assertThat(request.getName()).isEqualTo("nics");
            assertThat(request.getExactly().getDeviceClassName()).isEqualTo("rdma.railyard.io");
            assertThat(request.getExactly().getCount()).isEqualTo(4L);
        });
        Pod pod = Jobs.pods(job).getFirst();
        assertThat(pod.getSpec().getResourceClaims()).singleElement().satisfies(claim -> {
            assertThat(claim.getName()).isEqualTo("rdma");
            assertThat(claim.getResourceClaimTemplateName()).isEqualTo("job-rdma");
        });
        Container trainer = pod.getSpec().getContainers().getFirst();
        assertThat(trainer.getResources().getLimits()).containsOnlyKeys("nvidia.com/gpu");
        assertThat(trainer.getResources().getClaims()).extracting(c -> c.getName()).containsExactly("rdma");
        Container gate = pod.getSpec().getInitContainers().getFirst();
        assertThat(gate.getResources().getClaims()).as("the gate tests the claim's NICs").extracting(c -> c.getName()).containsExactly("rdma");
        assertThat(gate.getResources().getLimits()).isNullOrEmpty();
    }

    @Test
    void alignedPairsPutEachNicOnItsGpusPcieRoot() {
        TrainingJob job = Jobs.yaml("{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, rdma: {allocation: dra, devicesPerNode: 2, alignWithGpus: true}}");

        var devices = template(job).getSpec().getSpec().getDevices();
        assertThat(devices.getRequests()).extracting(DeviceRequest::getName).containsExactly("gpu0", "nic0", "gpu1", "nic1", "gpus");
        assertThat(devices.getRequests()).extracting(r -> r.getExactly().getDeviceClassName() + " " + r.getExactly().getCount())
                .containsExactly("gpu.nvidia.com 1", "rdma.railyard.io 1", "gpu.nvidia.com 1", "rdma.railyard.io 1", "gpu.nvidia.com 6");
        assertThat(devices.getConstraints()).extracting(c -> c.getRequests() + " " + c.getMatchAttribute())
                .containsExactly("[gpu0, nic0] resource.kubernetes.io/pcieRoot", "[gpu1, nic1] resource.kubernetes.io/pcieRoot");
        assertThat(Jobs.pods(job).getFirst().getSpec().getContainers().getFirst().getResources().getLimits())
                .as("the GPUs come through the claim").doesNotContainKeys("nvidia.com/gpu", "rdma/rdma");
    }

    @Test
    void theDevicePluginStaysTheDefault() {
        TrainingJob job = Jobs.yaml("{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8}");

        assertThat(Jobs.render(job)).noneMatch(ResourceClaimTemplate.class::isInstance);
        assertThat(Jobs.pods(job).getFirst().getSpec().getResourceClaims()).isNullOrEmpty();
        assertThat(Jobs.pods(job).getFirst().getSpec().getContainers().getFirst().getResources().getLimits()).containsKeys("nvidia.com/gpu", "rdma/rdma");
    }

    @Test
    void alignmentWithoutDraOrWithMoreNicsThanGpusIsInvalid() {
        assertThat(JobValidation.errors(Jobs.yaml("{image: p, script: t.py, nodes: 1, gpusPerNode: 8, rdma: {alignWithGpus: true, deviceClassName: x}}")))
                .containsExactly("spec.rdma.alignWithGpus: needs allocation dra (the device plugin cannot pair NICs with GPUs)",
                        "spec.rdma.deviceClassName: is for allocation dra");
        assertThat(JobValidation.errors(Jobs.yaml("{image: p, script: t.py, nodes: 1, gpusPerNode: 2, rdma: {allocation: dra, alignWithGpus: true, devicesPerNode: 4}}")))
                .containsExactly("spec.rdma.devicesPerNode: with alignWithGpus at most gpusPerNode (each NIC is paired with a GPU)");
        assertThat(JobValidation.errors(Jobs.yaml("{image: p, script: t.py, nodes: 1, gpusPerNode: 8, rdma: {allocation: dra}}"))).isEmpty();
    }
}
