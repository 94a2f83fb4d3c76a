package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceConstraintBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import io.railyard.api.TrainingJob;
import java.util.ArrayList;
import java.util.List;

/**
 * With {@code rdma.allocation: dra}, each pod's NICs come from a ResourceClaim made from this template: one request
 * for {@code devicesPerNode} NICs, or, with {@code alignWithGpus}, a GPU and a NIC per pair constrained to one PCIe
 * root ({@code resource.kubernetes.io/pcieRoot}, which NVIDIA's GPU driver and Railyard's both publish), and the
 * GPUs beyond the pairs as one more request.
 */
final class ClaimTemplateModel {
    /** The name of the claim in the pod, which its containers' resources.claims refer to. */
    static final String CLAIM = "rdma";
    static final String DEFAULT_NIC_CLASS = "rdma.railyard.io";
    static final String GPU_CLASS = "gpu.nvidia.com";
    static final String PCIE_ROOT = "resource.kubernetes.io/pcieRoot";

    private ClaimTemplateModel() {}

    static String name(JobSettings settings) {
        return settings.name() + "-rdma";
    }

    static ResourceClaimTemplate desired(TrainingJob job, JobSettings settings) {
        String nics = settings.rdma().deviceClassName != null ? settings.rdma().deviceClassName : DEFAULT_NIC_CLASS;
        List<DeviceRequest> requests = new ArrayList<>();
        ResourceClaimTemplateBuilder template = new ResourceClaimTemplateBuilder().withMetadata(Ownership.metadata(job, name(settings)));
        template.withNewSpec().withNewSpec().withNewDevices().endDevices().endSpec().endSpec();
        if (!settings.gpusInClaim()) {
            requests.add(request("nics", nics, settings.devicesPerNode()));
        } else {
            for (int pair = 0; pair < settings.devicesPerNode(); pair++) {
                requests.add(request("gpu" + pair, GPU_CLASS, 1));
                requests.add(request("nic" + pair, nics, 1));
                template.editSpec().editSpec().editDevices().addToConstraints(new DeviceConstraintBuilder()
                        .withRequests("gpu" + pair, "nic" + pair).withMatchAttribute(PCIE_ROOT).build()).endDevices().endSpec().endSpec();
            }
            int rest = settings.spec().gpusPerNode - settings.devicesPerNode();
            if (rest > 0) {
                requests.add(request("gpus", GPU_CLASS, rest));
            }
        }
        return template.editSpec().editSpec().editDevices().withRequests(requests).endDevices().endSpec().endSpec().build();
    }

    private static DeviceRequest request(String name, String deviceClass, int count) {
        return new DeviceRequestBuilder().withName(name).withNewExactly().withDeviceClassName(deviceClass).withCount((long) count).endExactly().build();
    }
}
