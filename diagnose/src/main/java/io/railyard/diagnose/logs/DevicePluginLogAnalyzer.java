package io.railyard.diagnose.logs;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * RDMA device plugin logs: NVIDIA's k8s-rdma-shared-dev-plugin (its own lines, and the discovery lines it shares with
 * the SR-IOV plugin, which SriovDevicePluginAnalyzer reads), and Railyard's agent.
 */
final class DevicePluginLogAnalyzer implements Analyzer {
    private static final Pattern MISSING_DEVICE = Pattern.compile("RDMA device \\\\?\"(\\w+)\\\\?\" not found");
    private static final Pattern EXPOSING = Pattern.compile("exposing \"?(\\d+)\"? devices");
    /** k8s-rdma-shared-dev-plugin, when a resource's selectors match no RDMA device. */
    private static final Pattern NONE_FOUND = Pattern.compile("no Rdma Devices were found for resource (\\S+)");

    private static final String AGENT_LOGGER = "i.r.a.";
    /** What the shared plugin writes as it starts: a few lines are the SR-IOV plugin's too, the first ones only its own. */
    private static final List<String> SHARED_PLUGIN = List.of("K8s RDMA Shared Device Plugin", "RdmaHcaMax", "k8s-rdma-shared-dev-plugin",
            "periodic update interval", "resource manager reading configs", "Plugin Registry Mode", "Discovering host devices", "loaded config: [");
    private static final Line.Words HINTS = Line.Words.of(List.of("evice", "RDMA", "Rdma", AGENT_LOGGER, "esource", "onfig", "nterval", "egistry"));

    private final Findings findings;
    private long hits;

    DevicePluginLogAnalyzer(Findings findings) {
        this.findings = findings;
    }

    @Override
    public Interest interest() {
        return Interest.words(HINTS.words());
    }

    @Override
    public void accept(Line line) {
        if (!line.containsAny(HINTS)) {
            return;
        }
        String text = line.text();
        if (text.contains("incorrect RDMA subsystem network namespace")) {
            hits++;
            findings.add("plugin-rdma-netns-exclusive", Severity.ERROR, "the shared RDMA device plugin exits: the node's RDMA subsystem is in"
                            + " exclusive network-namespace mode, where a device cannot be shared by the pods",
                    "for shared devices set the mode back to shared (rdma system set netns shared; ib_core netns_mode=1 at boot); to"
                            + " give each pod its own device keep exclusive mode and use the SR-IOV device plugin with rdma-cni", line);
            return;
        }
        if (SHARED_PLUGIN.stream().anyMatch(text::contains)) {
            hits++;
            return;
        }
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
        Matcher noneFound = NONE_FOUND.matcher(text);
        if (noneFound.find()) {
            hits++;
            findings.add("plugin-exposes-no-devices", Severity.ERROR, "the device plugin found no RDMA device for resource " + noneFound.group(1),
                    "check the resource's selectors (vendors, deviceIDs, drivers, ifNames, linkTypes) against the node's devices; "
                            + "pods requesting it stay Pending", line);
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
