package io.railyard.diagnose;

import io.railyard.node.Gpu;
import io.railyard.node.GpuNicAffinity;
import io.railyard.node.PathClass;
import java.util.ArrayList;
import java.util.List;

/** Each GPU's nearest RDMA NIC and the PCI path between them; far NICs cost GPUDirect RDMA and bandwidth. */
final class GpuNicAffinityCheck {
    static final String ID = "gpu-nic-affinity";

    static CheckResult run(DoctorInput input) {
        if (input.node().gpus().isEmpty()) {
            return CheckResult.skip(ID, "no NVIDIA GPUs on the PCI bus");
        }
        List<GpuNicAffinity> affinities = input.node().gpuNicAffinities();
        if (affinities.isEmpty()) {
            return CheckResult.skip(ID, "no RDMA NIC with a known PCI location");
        }
        List<String> details = new ArrayList<>();
        List<String> far = new ArrayList<>();
        for (GpuNicAffinity affinity : affinities) {
            Gpu gpu = affinity.gpu();
            details.add("GPU " + gpu.address() + gpu.model().map(m -> " (" + m + ")").orElse("") + " -> "
                    + affinity.nearest().name() + " " + affinity.pathClass());
            if (!affinity.pathClass().withinNcclDefaultGdrLevel()) {
                far.add(gpu.address() + " (" + affinity.nearest().name() + " " + affinity.pathClass() + ")");
            }
        }
        if (!far.isEmpty() && input.node().isGraceC2c()) {
            return CheckResult.ok(ID, "Grace host: each GPU reaches its NIC through the CPU over NVLink-C2C (" + String.join(", ", far)
                    + "), the normal Grace layout; GPUDirect RDMA goes over C2C with NCCL_NET_GDR_C2C=1", details);
        }
        if (far.isEmpty()) {
            PathClass worst = affinities.stream().map(GpuNicAffinity::pathClass).max(Enum::compareTo).orElseThrow();
            return CheckResult.ok(ID, "every GPU has an RDMA NIC at " + worst + " or nearer", details);
        }
        return new CheckResult(ID, CheckStatus.WARN, far.size() + " of " + affinities.size()
                + " GPUs have no RDMA NIC under their PCIe switch: " + String.join(", ", far), details,
                "NCCL uses GPUDirect RDMA only up to NCCL_NET_GDR_LEVEL (default PXB): put a NIC under each GPU's switch, "
                        + "or accept the cost and set NCCL_NET_GDR_LEVEL=PHB (or SYS) after measuring with nccl-tests");
    }
}
