package io.railyard.diagnose.logs;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** NCCL's lines on GPUDirect RDMA ({@code GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)}): whether it is on, and why not. */
final class NcclGdrLines {
    private static final Pattern GDR_DISTANCE = Pattern.compile("GPU Direct RDMA Disabled for GPU .*\\(distance (\\d+) >=? (\\d+)\\)");

    private final Findings findings;
    private boolean disabled;
    private boolean enabled;
    private boolean noModule;

    NcclGdrLines(Findings findings) {
        this.findings = findings;
    }

    /** A line that says GPUDirect RDMA is on or off, without more (a plugin's init line). */
    void said(boolean on) {
        enabled |= on;
        disabled |= !on;
    }

    boolean disabled() {
        return disabled;
    }

    boolean enabled() {
        return enabled;
    }

    boolean noModule() {
        return noModule;
    }

    void accept(Line line) {
        String text = line.text();
        if (text.contains("Disabled")) {
            disabled = true;
            Matcher distance = GDR_DISTANCE.matcher(text);
            if (distance.find()) {
                findings.add("gdr-distance", Severity.WARN, "GPUDirect RDMA off: a GPU is farther from its NIC (distance "
                                + distance.group(1) + ") than NCCL_NET_GDR_LEVEL allows (" + distance.group(2) + ")",
                        "place the job's GPUs under the NICs' PCIe switches, or raise NCCL_NET_GDR_LEVEL (PHB, SYS) after "
                                + "measuring with nccl-tests", line);
            } else if (text.contains("(no module)")) {
                noModule = true;
                findings.add("gdr-no-module", Severity.WARN, "GPUDirect RDMA off: no peer-memory module",
                        "load nvidia_peermem (or use DMA-BUF with the open GPU kernel modules); railyard doctor's gpudirect "
                                + "check shows which", line);
            } else if (!text.contains("NET/Socket")) {
                findings.add("gdr-disabled", Severity.WARN, "NCCL reports GPUDirect RDMA disabled for an HCA",
                        "check that nvidia_peermem is loaded (lsmod) or that DMA-BUF works (NCCL_DMABUF_ENABLE), "
                                + "and the GPU-NIC distance against NCCL_NET_GDR_LEVEL", line);
            }
        } else if (text.contains("Enabled")) {
            enabled = true;
        }
    }
}
