package io.railyard.diagnose;

import io.railyard.node.NodeInventory;
import java.util.ArrayList;
import java.util.List;

/** GPUDirect RDMA is possible: a peer-memory module is loaded, or DMA-BUF is available to NCCL. */
final class GpuDirectCheck {
    static final String ID = "gpudirect";

    static CheckResult run(DoctorInput input) {
        NodeInventory node = input.node();
        if (node.gpus().isEmpty() || node.hcas().isEmpty()) {
            return CheckResult.skip(ID, node.gpus().isEmpty() ? "no NVIDIA GPUs on the PCI bus" : "no RDMA devices");
        }
        List<String> details = new ArrayList<>(node.peerMemory());
        details.add("NVIDIA driver: " + node.nvidiaDriver().orElse("not loaded"));
        details.add("kernel: " + node.kernelRelease().orElse("unknown"));
        if (!node.peerMemory().isEmpty()) {
            return CheckResult.ok(ID, "GPUDirect RDMA possible through " + String.join(", ", node.peerMemory()), details);
        }
        if (dmaBufPossible(node)) {
            return CheckResult.ok(ID, "no peer-memory module, but DMA-BUF is possible (open GPU kernel modules, kernel "
                    + node.kernelRelease().orElse("") + "): NCCL 2.13+ uses it", details);
        }
        return new CheckResult(ID, CheckStatus.FAIL, "GPUDirect RDMA is not possible: no peer-memory module (nvidia_peermem) "
                + "and no DMA-BUF support; NCCL will stage every transfer through host memory", details,
                "modprobe nvidia_peermem (from the NVIDIA driver; the GPU operator can load it with driver.rdma.enabled=true), "
                        + "or use the open GPU kernel modules on a kernel >= 5.12 for DMA-BUF");
    }

    /** DMA-BUF GPUDirect needs the open NVIDIA kernel modules and Linux 5.12 or later. */
    private static boolean dmaBufPossible(NodeInventory node) {
        boolean openModules = node.nvidiaDriver().is(line -> line.contains("Open Kernel Module"));
        return openModules && node.kernelRelease().is(GpuDirectCheck::atLeast512);
    }

    static boolean atLeast512(String release) {
        String[] parts = release.split("[.-]");
        try {
            int major = Integer.parseInt(parts[0]);
            int minor = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
            return major > 5 || (major == 5 && minor >= 12);
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
