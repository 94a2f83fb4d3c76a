package io.railyard.diagnose.logs;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** NCCL's error lines, each a finding: why IB was not used, failed RDMA completions, failed verbs calls. */
final class NcclErrorLines {
    private static final String NO_DEVICE = "NET/IB : No device found";
    /** NCCL 2.3's words for it. */
    private static final String ZERO_DEVICES = "call to devices() returned 0 devices";
    private static final String NO_VERBS = "Failed to open libibverbs";
    private static final String PLUGIN_IB_FAILED = "Failed to initialize NET plugin IB";
    /** "NET/IB : Unable to open device mlx5_0": the device is there but verbs cannot open it (permissions, driver). */
    private static final String IB_OPEN_FAILED = "NET/IB : Unable to open device";
    private static final String IB_DISABLED = "NCCL_IB_DISABLE set by environment to 1";
    private static final Pattern STATUS = Pattern.compile("(?:with error |status=(?:IBV_WC_\\w+\\()?)(\\d+)");
    private static final Pattern VENDOR = Pattern.compile("vendor[ _]err[ =]?(\\d+)");
    private static final Pattern LOCAL_GID = Pattern.compile("localGid\\s*(\\S+)");

    private final Findings findings;

    NcclErrorLines(Findings findings) {
        this.findings = findings;
    }

    /** Why NCCL could not use its IB network, or was told not to. */
    void fallbackCause(Line line) {
        if (line.contains(NO_DEVICE) || line.contains(ZERO_DEVICES)) {
            findings.add("ib-no-device", Severity.ERROR, "NCCL found no active RDMA port (NET/IB : No device found)",
                    "check the RDMA driver and link (railyard doctor on the node), and that the pod requests the RDMA "
                            + "resource so /dev/infiniband is mounted", line);
        } else if (line.contains(NO_VERBS)) {
            findings.add("no-verbs-library", Severity.ERROR, "NCCL could not load libibverbs",
                    "install rdma-core (libibverbs and the mlx5 provider) in the container image", line);
        } else if (line.contains(PLUGIN_IB_FAILED) || line.contains(IB_OPEN_FAILED)) {
            findings.add("ib-init-failed", Severity.ERROR, "NCCL's IB network failed to initialize",
                    "read the WARN lines before it; check the RDMA devices and the container's /dev/infiniband", line);
        } else if (line.contains(IB_DISABLED)) {
            findings.add("rdma-disabled", Severity.ERROR, "NCCL_IB_DISABLE=1: NCCL was told not to use RDMA",
                    "unset NCCL_IB_DISABLE (or set it to 0)", line);
        }
    }

    /**
     * A failed RDMA completion: a finding by its status. Returns the link layer the line shows ("RoCE" for a routable
     * local GID, "IB" for NCCL's IB transport), null when it cannot tell.
     */
    String completion(Line line, boolean anyRoce) {
        String text = line.text();
        Matcher status = STATUS.matcher(text);
        if (!status.find()) {
            return null;
        }
        int code = Integer.parseInt(status.group(1));
        Matcher localGid = LOCAL_GID.matcher(text);
        String gid = localGid.find() ? localGid.group(1) : null;
        boolean linkLocal = gid != null && gid.toLowerCase().startsWith("fe80");
        Matcher vendor = VENDOR.matcher(text);
        String suffix = " (vendor error " + (vendor.find() ? vendor.group(1) : "unknown") + ")";
        switch (code) {
            case 12 -> findings.add("retry-exceeded", Severity.ERROR, "RDMA completions failed with status 12 RETRY_EXC_ERR" + suffix
                            + ": the peer never acknowledged",
                    "check the GID index (RoCE v2 with an IPv4 address on both ends), that the NICs can reach each other "
                            + "(routes, VLAN, MTU), and packet loss (ECN/PFC); NCCL_IB_TIMEOUT=20 tolerates slow fabrics", line);
            case 13 -> findings.add("rnr-retry-exceeded", Severity.ERROR, "RDMA completions failed with status 13 RNR_RETRY_EXC_ERR" + suffix,
                    "the receiver had no buffer posted in time: look for a stalled or crashed peer rank", line);
            case 4 -> findings.add("local-protection-error", Severity.ERROR, "RDMA completions failed with status 4 LOC_PROT_ERR" + suffix,
                    "usually PCIe ACS or the IOMMU blocking GPUDirect RDMA: test with NCCL_NET_GDR_LEVEL=0, then disable ACS "
                            + "on the PCIe switches or set the IOMMU to passthrough (iommu=pt)", line);
            case 5 -> findings.add("wr-flush-error", Severity.INFO, "RDMA completions flushed with status 5 WR_FLUSH_ERR" + suffix,
                    "these follow an earlier error on the same queue pair: look for it", line);
            default -> findings.add("completion-error", Severity.ERROR, "RDMA completions failed with status " + code + suffix,
                    "look up the ibv_wc_status and the vendor error", line);
        }
        if (linkLocal && anyRoce) {
            findings.add("link-local-gid", Severity.ERROR, "RoCE traffic used a link-local GID (" + gid + "), which cannot be routed",
                    "set NCCL_IB_GID_INDEX to the RoCE v2 IPv4 entry (railyard doctor's gid check), or let NCCL >= 2.21 choose", line);
        }
        return gid != null && !linkLocal ? "RoCE" : text.contains("NET/IB") ? "IB" : null;
    }

    /** AWS's OFI plugin could not register a buffer for a connection; with ENOMEM that is the locked-memory limit. */
    void pluginRegistration(Line line) {
        if (line.text().contains("Cannot allocate memory")) {
            memlock(line);
        } else {
            findings.add("verbs-call-failed", Severity.ERROR, "the network plugin could not register memory: " + abbreviate(line.text()),
                    "read the error in the message; check the device and memlock limit in the container", line);
        }
    }

    private void memlock(Line line) {
        findings.add("memlock", Severity.ERROR, "memory registration failed: Cannot allocate memory (locked-memory limit)",
                "raise the memlock limit to unlimited for the container runtime and the pod (railyard doctor's memlock check)", line);
    }

    /** A verbs call NCCL reports as failed: memory registration, queue pair set-up, DMA-BUF. */
    void verbsCall(Line line) {
        String text = line.text();
        if (text.contains("ibv_reg_dmabuf_mr")) {
            findings.add("dmabuf-registration-failed", Severity.ERROR, "DMA-BUF memory registration failed",
                    "set NCCL_DMABUF_ENABLE=0 to use nvidia_peermem, or update the driver and kernel for DMA-BUF", line);
        } else if (text.contains("ibv_reg_mr") && text.contains("Cannot allocate memory")) {
            memlock(line);
        } else if (text.contains("ibv_modify_qp") && (text.contains("timed out") || text.contains("unreachable"))) {
            findings.add("unroutable-gid", Severity.ERROR, "ibv_modify_qp " + (text.contains("unreachable") ? "failed with Network is unreachable"
                            : "timed out") + ": the remote GID cannot be reached",
                    "use a routable RoCE v2 IPv4 GID index on every node (not fe80::), and check routes between the NICs", line);
        } else {
            findings.add("verbs-call-failed", Severity.ERROR, "a verbs call failed: " + abbreviate(text),
                    "read the errno in the message; check /dev/infiniband in the container and the device's state", line);
        }
    }

    /**
     * A socket NCCL used (bootstrap, proxy, the socket transport) broke: the peer process died or the network between
     * them failed. Only lines of NCCL's socket code count: other programs say these words about their own sockets.
     */
    void connectionLost(Line line) {
        if (!line.contains("reset by peer") && !line.contains("roken pipe") && !line.contains("closed by remote peer")) {
            return;
        }
        String text = line.text();
        if (text.contains("NCCL WARN") || text.contains("socket") || text.contains("Call to recv") || text.contains("Call to send")) {
            findings.add("connection-lost", Severity.ERROR, "a connection between ranks broke: " + abbreviate(text),
                    "a peer rank exited or its host dropped off the network: find the first rank that failed (its log, an OOM kill, an "
                            + "XID in dmesg); if none did, check the bootstrap interface (NCCL_SOCKET_IFNAME) and firewalls between the hosts", line);
        }
    }

    /** AWS's OFI plugin (EFA, Libfabric) failing to set up or to complete requests. */
    void ofi(Line line) {
        String text = line.text();
        if (text.contains("Couldn't open AV")) {
            findings.add("ofi-av-failed", Severity.ERROR, "the OFI plugin could not open its address vector: " + abbreviate(text),
                    "Libfabric could not allocate the EFA device's resources: check that the EFA devices are in the container "
                            + "(/dev/infiniband/uverbs*), the EFA driver and Libfabric versions (fi_info -p efa), and the efa lines in dmesg", line);
        } else if (text.contains("completed with error")) {
            findings.add("ofi-completion-error", Severity.ERROR, "the OFI plugin's requests completed with an error: " + abbreviate(text),
                    "on EFA an unreachable or unresponsive peer (handshake failed, UNDELIVERABLE) means the security group does not let "
                            + "the instances reach each other: allow all traffic to and from the group itself, both ways; else read the "
                            + "provider's error", line);
        }
    }

    /** NCCL tried its IB network and could not use it. */
    boolean ibFailed() {
        return findings.has("ib-no-device") || findings.has("no-verbs-library") || findings.has("ib-init-failed");
    }

    private static String abbreviate(String text) {
        String trimmed = text.strip();
        int warn = trimmed.indexOf("NCCL WARN ");
        String message = warn >= 0 ? trimmed.substring(warn + 10) : trimmed;
        return message.length() > 160 ? message.substring(0, 160) + "…" : message;
    }
}
