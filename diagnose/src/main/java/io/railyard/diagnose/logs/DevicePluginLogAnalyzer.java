package io.railyard.diagnose.logs;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** RDMA device plugin logs (k8s-rdma-shared-dev-plugin, sriov-network-device-plugin, Railyard's agent). */
final class DevicePluginLogAnalyzer implements Analyzer {
    private static final Pattern MISSING_DEVICE = Pattern.compile("RDMA device \\\\?\"(\\w+)\\\\?\" not found");
    private static final Pattern EXPOSING = Pattern.compile("exposing \"?(\\d+)\"? devices");

    private static final String DEVICE = "device";
    private static final String RDMA = "RDMA";
    private static final String AGENT_LOGGER = "i.r.a.";

    private final Findings findings;
    private long hits;

    DevicePluginLogAnalyzer(Findings findings) {
        this.findings = findings;
    }

    @Override
    public void accept(Line line) {
        if (!line.contains(DEVICE) && !line.contains(RDMA) && !line.contains(AGENT_LOGGER)) {
            return;
        }
        String text = line.text();
        if (text.contains("DiscoverHostDevices") || text.contains("discovering host network devices")
                || text.contains("device plugin") || text.contains("i.r.a.")) {
            hits++;
        }
        Matcher missing = MISSING_DEVICE.matcher(text);
        if (missing.find()) {
            hits++;
            String device = missing.group(1);
            findings.add("plugin-" + device.replace('_', '-') + "-missing", Severity.ERROR,
                    "the device plugin cannot find /dev/infiniband/" + device + (device.equals("rdma_cm")
                            ? ": the rdma_ucm module is not loaded" : ": the ib_uverbs or ib_umad module is not loaded"),
                    (device.equals("rdma_cm") ? "modprobe rdma_ucm" : "modprobe ib_uverbs ib_umad")
                            + " on the node (and load it at boot); railyard doctor's driver check lists what is missing", line);
            return;
        }
        Matcher exposing = EXPOSING.matcher(text);
        if (exposing.find()) {
            hits++;
            if (exposing.group(1).equals("0")) {
                findings.add("plugin-exposes-no-devices", Severity.ERROR, "the device plugin advertises 0 RDMA devices",
                        "fix the errors before this line; pods requesting the RDMA resource stay Pending until it advertises some", line);
            }
            return;
        }
        if (text.contains("unhealthy:") && text.contains("RdmaDevicePlugin")) {
            hits++;
            findings.add("plugin-device-unhealthy", Severity.WARN, "the device plugin marked a port Unhealthy",
                    "see the port's state in the line; railyard doctor's link check says why", line);
        }
    }

    @Override
    public long hits() {
        return hits;
    }

    @Override
    public void finish(LogReport.Builder report) {
        // every finding is made line by line
    }
}
