package io.railyard.diagnose.logs;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What people paste beside NCCL when RDMA fails underneath it: Open MPI's openib warnings, SR-IOV virtual functions
 * without a GUID, and {@code rdma link} output.
 */
final class RdmaStackAnalyzer implements Analyzer {
    private static final Pattern DEVICE_LINE = Pattern.compile("^\\s*(?:Local device|Local adapter|Device name):\\s*(\\S+)");
    private static final Pattern VF_GUID = Pattern.compile("VF (\\S+) GUID is not valid");
    private static final Pattern ZERO_GUID_DEVICE = Pattern.compile("^(\\w+)\\s+0{16}\\s*$");
    private static final Pattern ZERO_NODE_GUID = Pattern.compile("Node GUID:\\s*0x0{16}\\b");
    private static final Pattern RDMA_LINK = Pattern.compile("^link (\\S+?)/(\\d+) .*?\\bstate (\\S+)(?: physical_state (\\S+))?");

    private final Findings findings;
    private long openMpi;
    private long sriov;
    private long rdmaLink;
    /** The first openib failure, kept as number and text: the reader reuses its Line for the next one. */
    private long openibLine = -1;
    private String openibText;
    private String openibDevice;

    RdmaStackAnalyzer(Findings findings) {
        this.findings = findings;
    }

    /**
     * Few searches a line: this runs on every line of a large log that is not NCCL's own ("pen" finds OpenFabrics,
     * Open MPI and openib).
     */
    @Override
    public Interest interest() {
        return new Interest(List.of("pen", "GUID", "0000000000000000", "link "), line -> openibLine >= 0 && openibDevice == null);
    }

    @Override
    public void accept(Line line) {
        if (line.contains("pen") && (line.contains("OpenFabrics") || line.contains("openib") || line.contains("Open MPI"))) {
            openMpi(line);
        } else if (openibLine >= 0 && openibDevice == null) {
            Matcher device = DEVICE_LINE.matcher(line.text());
            if (device.find()) {
                openibDevice = device.group(1);
            }
        }
        if (line.contains("GUID") || line.contains("0000000000000000")) {
            guid(line);
        }
        if (line.startsWith("link ", 0)) {
            link(line);
        }
    }

    private void openMpi(Line line) {
        openMpi++;
        String text = line.text();
        boolean failure = text.contains("error initializing an OpenFabrics device") || text.contains("No OpenFabrics connection schemes")
                || text.contains("no active ports detected") || text.contains("error in device init");
        if (failure && openibLine < 0) {
            openibLine = line.number();
            openibText = text;
        }
    }

    private void guid(Line line) {
        String text = line.text();
        Matcher vf = VF_GUID.matcher(text);
        Matcher zero = ZERO_GUID_DEVICE.matcher(text.strip());
        String device = vf.find() ? vf.group(1) : zero.find() ? zero.group(1) : ZERO_NODE_GUID.matcher(text).find() ? "a device" : null;
        if (device == null) {
            return;
        }
        sriov++;
        findings.add("sriov-guid", Severity.ERROR, "the virtual function " + device + " has no valid GUID (all zeros)",
                "let the SR-IOV network operator (or ib-kubernetes with the subnet manager) assign VF GUIDs, or set them with"
                        + " ip link set <pf> vf <n> node_guid/port_guid, then rebind the VF's driver", line);
    }

    private void link(Line line) {
        Matcher link = RDMA_LINK.matcher(line.text());
        if (!link.find()) {
            return;
        }
        rdmaLink++;
        String device = link.group(1);
        if (device.startsWith("rxe") || device.startsWith("siw")) {
            findings.add("soft-rdma", Severity.WARN, device + " is " + (device.startsWith("rxe") ? "Soft-RoCE (rxe)" : "Soft-iWARP (siw)")
                            + ": RDMA done in software over a plain NIC, far below an RDMA NIC's speed",
                    "fine for trying things out; for training, use the RDMA NIC's own device (mlx5_*) and remove the software link"
                            + " (rdma link delete " + device + ")", line);
        }
        String state = link.group(3);
        if (!state.equals("ACTIVE")) {
            findings.add("port-down", Severity.ERROR, "port " + link.group(1) + "/" + link.group(2) + " is " + state
                            + (link.group(4) == null ? "" : " (physical_state " + link.group(4) + ")"),
                    "check the cable, the optic and the switch port, then the driver (railyard doctor's link check)", line);
        }
    }

    /** The tool this input came from: the one with the most lines recognized. */
    String kind() {
        long most = Math.max(openMpi, Math.max(sriov, rdmaLink));
        return most == rdmaLink ? "rdma-link" : most == sriov ? "sriov" : "openmpi";
    }

    @Override
    public long hits() {
        return openMpi + sriov + rdmaLink;
    }

    @Override
    public void finish(LogReport.Builder report) {
        if (openibLine >= 0) {
            findings.add("openmpi-openib", Severity.WARN, "Open MPI could not use " + (openibDevice == null ? "an OpenFabrics device" : openibDevice)
                            + " through its openib BTL",
                    "Open MPI 4 and later reach InfiniBand through UCX: run with --mca pml ucx --mca btl ^openib; NCCL does not use"
                            + " openib, its own lines say which network it took", openibLine, openibText);
        }
    }
}
