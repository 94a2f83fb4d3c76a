package io.railyard.diagnose.logs;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The SR-IOV network device plugin's log (sriov-network-device-plugin, old and new formats): its resource list, the
 * devices it found, and a resource whose selectors matched none.
 */
final class SriovDevicePluginAnalyzer implements Analyzer {
    /** What only this plugin writes, in its 2019 to 2025 releases. */
    private static final List<String> MARKERS = List.of("resource manager reading configs", "ResourceList", "NetDeviceSelectors",
            "net device selector for resource", "AddTargetDevices", "discoverDevices(", "Discovering host devices",
            "Discovering host network devices", "Plugin Registry Mode", "validating resource name", "device pool", "netResourcePool",
            "GetDeviceSpecs(", "sriovdp");
    /** The hints tested first: one pair lookup each in the line's bitmap. */
    private static final Line.Words HINTS = Line.Words.of(List.of("esource", "elector", "evice", "egistry", "sriov"));
    private static final Pattern EMPTY_POOL = Pattern.compile("no devices in device pool, skipping creating resource server for (\\S+)");

    private final Findings findings;
    private long hits;

    SriovDevicePluginAnalyzer(Findings findings) {
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
        if (MARKERS.stream().noneMatch(text::contains)) {
            return;
        }
        hits++;
        Matcher empty = EMPTY_POOL.matcher(text);
        if (empty.find()) {
            findings.add("plugin-exposes-no-devices", Severity.ERROR, "the SR-IOV device plugin found no device for resource " + empty.group(1),
                    "the resource's selectors (vendors, devices, drivers, pfNames, rootDevices, isRdma) match no virtual function: "
                            + "check that the VFs exist (sriov_numvfs), their device ID and driver (lspci -nnk), and for isRdma that "
                            + "the VFs have RDMA devices; pods requesting it stay Pending", line);
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
