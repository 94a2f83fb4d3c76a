package io.railyard.diagnose.logs;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lines of NCCL's set-up that fragments often hold: the IB queue pair lines ({@code NET/IB: Dev 0 Port 1 qpn 58 mtu 3
 * GID 3 (…)}), whose GID index means RoCE and whose active MTU may be short; the socket bootstrap's failures, which name
 * a wrong interface; and AWS's OFI plugin's provider and GPUDirect lines.
 */
final class NcclSetupLines {
    private static final Pattern QP = Pattern.compile("NET/IB ?: .*?\\bqpn \\d+ mtu (\\d)\\b(.*)");
    private static final Pattern GID = Pattern.compile("\\bGID (\\d+)");
    private static final Pattern CONNECT_TO = Pattern.compile("[Cc]onnect to (\\S+?)<\\d+>");
    private static final String[] IB_MTUS = {"", "256", "512", "1024", "2048", "4096"};
    private static final String OFI = "NET/OFI ";
    private static final Pattern OFI_PROVIDER = Pattern.compile("NET/OFI Selected [Pp]rovider is (\\S+)");

    private final Findings findings;

    NcclSetupLines(Findings findings) {
        this.findings = findings;
    }

    static boolean mayBeOne(Line line) {
        return line.contains(" qpn ") || line.contains("onnect") || line.contains("bootstrap") || line.contains(OFI);
    }


    /** AWS's OFI plugin: the Libfabric provider it selected (efa on AWS), or null for another line. */
    String ofiProvider(Line line) {
        if (!line.contains(OFI)) {
            return null;
        }
        Matcher provider = OFI_PROVIDER.matcher(line.text());
        return provider.find() ? provider.group(1) : null;
    }

    /** Libfabric found no EFA provider for AWS's OFI plugin: the EFA devices are not visible where NCCL runs. */
    void ofiNoProvider(Line line) {
        String text = line.text();
        if (text.contains("empty list") || text.contains("call failed") || text.contains("optimal provider")) {
            findings.add("ofi-no-provider", Severity.ERROR, "Libfabric found no EFA provider: the OFI plugin cannot use EFA",
                    "make the EFA devices visible to the container (request vpc.amazonaws.com/efa, or mount /dev/infiniband), check"
                            + " with fi_info -p efa -t FI_EP_RDM, and use an instance type with EFA", line);
        }
    }

    /** AWS's OFI plugin on GPUDirect RDMA (or DMA-BUF): true enabled, false disabled, null for another line. */
    Boolean ofiGpuDirect(Line line) {
        String text = line.text();
        if (!text.contains(OFI) || !(text.contains("GPUDirect RDMA") || text.contains("DMA-BUF") || text.contains("DMABUF"))) {
            return null;
        }
        String lower = text.toLowerCase(Locale.ROOT);
        return lower.contains("disabled") || lower.contains("not supported") ? Boolean.FALSE
                : lower.contains("enabled") || lower.contains("supported") ? Boolean.TRUE : null;
    }

    /** The link layer a queue pair line shows ({@code RoCE} with a GID index, else {@code IB}), or null for another line. */
    String queuePair(Line line) {
        Matcher qp = QP.matcher(line.text());
        if (!qp.find()) {
            return null;
        }
        int mtu = Integer.parseInt(qp.group(1));
        if (mtu >= 1 && mtu < 5) {
            findings.add("mtu", Severity.WARN, "RDMA connections run with an active MTU of " + IB_MTUS[mtu] + " bytes, not 4096",
                    "on RoCE raise the netdev MTU to 4200 or more (9000 with jumbo frames) on every node and switch port; on"
                            + " InfiniBand check the subnet manager's MTU for the partition (railyard doctor's mtu check)", line);
        }
        Matcher gid = GID.matcher(qp.group(2));
        return gid.find() ? "RoCE" : "IB";
    }

    /** NCCL's socket bootstrap could not connect: the address it used says which interface was wrong. */
    void bootstrap(Line line) {
        String text = line.text();
        if (text.contains("Call to connect returned")) {   // a retry: the failure, with the address, follows
            findings.add("bootstrap-retry", Severity.INFO, "NCCL's socket bootstrap had to retry a connection to another rank",
                    "if a 'socketStartConnect ... failed' line follows, see its finding", line);
            return;
        }
        boolean failure = text.contains("socketStartConnect") || (text.contains("bootstrap") && (text.contains("failed") || text.contains("Error")));
        if (!failure) {
            return;
        }
        Matcher address = CONNECT_TO.matcher(text);
        String to = address.find() ? address.group(1) : null;
        String why;
        if (to != null && to.toLowerCase(Locale.ROOT).startsWith("fe80:")) {
            why = "it connected to the IPv6 link-local address " + to + ", which only that link can reach";
        } else if (to != null && to.startsWith("169.254.")) {
            why = "it connected to the link-local address " + to + ", which only that link can reach";
        } else if (to != null && (to.startsWith("127.") || to.equals("::1"))) {
            why = "it connected to the loopback address " + to + ": NCCL picked lo";
        } else if (to != null && to.startsWith("172.17.")) {
            why = "it connected to " + to + ", an address of docker0, a bridge local to each node";
        } else {
            why = "the interface NCCL chose does not reach the other ranks" + (to == null ? "" : " (" + to + ")");
        }
        findings.add("bootstrap-connect", Severity.ERROR, "NCCL's socket bootstrap could not connect between ranks: " + why,
                "set NCCL_SOCKET_IFNAME to the interface that carries the nodes' routable addresses (e.g. NCCL_SOCKET_IFNAME=eth0,"
                        + " or =^docker0,lo to leave out the bridges), the same on every rank; check that the port range is open"
                        + " between the nodes", line);
    }
}
