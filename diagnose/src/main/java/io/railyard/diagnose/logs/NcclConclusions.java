package io.railyard.diagnose.logs;

/**
 * What NCCL's network facts add up to, once a log is read: sockets (a silent fallback, or chosen), RDMA verified with
 * GPUDirect, or RDMA staged through host memory.
 */
final class NcclConclusions {
    private NcclConclusions() {}

    static void conclude(Findings findings, NcclSummary nccl, String socketInterfaces, boolean gdrNoModule) {
        if (nccl.transport().equals("socket")) {
            if (nccl.fallback()) {
                findings.conclude("socket-fallback", Severity.ERROR, "NCCL silently fell back from RDMA to TCP sockets"
                        + (socketInterfaces == null ? "" : " (" + socketInterfaces + ")"),
                        "fix the cause found above, then look for 'Using network IB' and 'via NET/IB' in the log");
            } else if (!findings.has("rdma-disabled")) {
                findings.conclude("socket-transport", Severity.ERROR, "NCCL used TCP sockets, not RDMA",
                        "check NCCL_NET and NCCL_IB_DISABLE, the RDMA devices in the container, and NCCL_IB_HCA");
            }
            if (socketInterfaces != null && socketInterfaces.matches(".*\\]lo:.*") && !socketInterfaces.contains("[1]")) {
                findings.conclude("socket-loopback", Severity.WARN, "NCCL's only socket interface is lo: ranks on other nodes cannot connect",
                        "set NCCL_SOCKET_IFNAME to the interface of the pod or host network");
            }
            return;
        }
        if (nccl.rdma() && Boolean.TRUE.equals(nccl.gdr())) {
            findings.conclude("rdma-verified", Severity.INFO, "NCCL used RDMA (" + nccl.transport()
                    + (nccl.plugin() == null ? "" : " " + nccl.plugin()) + ")"
                    + (nccl.hcas().isEmpty() ? "" : " on " + String.join(", ", nccl.hcas()))
                    + (nccl.gdrConnections() > 0 ? " with GPUDirect RDMA on " + nccl.gdrConnections() + " of " + nccl.netConnections()
                            + " connections" : ""),
                    "");
        } else if (nccl.rdma() && !findings.has("gdr-disabled") && !findings.has("gdr-no-module") && !findings.has("gdr-distance")) {
            findings.conclude("rdma-without-gdr", nccl.gdr() == null ? Severity.INFO : Severity.WARN, "NCCL used RDMA ("
                    + nccl.transport() + ")" + (nccl.gdr() == null ? "; the log does not say whether GPUDirect RDMA was used"
                    : " but without GPUDirect RDMA: every transfer is staged through host memory"),
                    gdrNoModule ? "load nvidia_peermem" : "set NCCL_DEBUG_SUBSYS=INIT,NET to see per-connection GDRDMA");
        }
    }
}
