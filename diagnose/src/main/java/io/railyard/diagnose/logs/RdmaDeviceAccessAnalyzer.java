package io.railyard.diagnose.logs;

import java.util.List;

/**
 * Any tool's words for "there is no RDMA device here" or "there is one but it cannot be opened" (libibverbs,
 * ibv_devinfo, perftest, and the programs that print libibverbs' words): one finding each, naming the likely causes.
 * It claims no kind: every tool says these.
 */
final class RdmaDeviceAccessAnalyzer implements Analyzer {
    private static final Line.Words WORDS = Line.Words.of(List.of("evice", "HCA", "river"));
    private static final List<String> NONE = List.of("No IB devices found", "Failed to get IB devices list", " 0 HCAs found",
            "Did not detect devices", "Unable to find the Infiniband/RoCE device", "If device exists, check if driver is up");
    private static final String NO_PROVIDER = "no userspace device-specific driver found for";
    /** {@code libibverbs: Warning: couldn't load driver 'libi40iw-rdmav34.so': ... cannot open shared object file}. */
    private static final String PROVIDER_NOT_LOADED = "couldn't load driver";
    private static final List<String> UNOPENABLE = List.of("Failed to open device", "Couldn't get context for the device");
    private static final String CAUSES = "the usual causes: the RDMA driver is not loaded on the node (modprobe mlx5_ib; railyard doctor's driver "
            + "check); in a container, /dev/infiniband is not mounted (request the RDMA resource, or the device plugin lost its devices); "
            + "the user-space provider (rdma-core's libmlx5) is missing from the image or does not match the kernel driver";

    private final Findings findings;

    RdmaDeviceAccessAnalyzer(Findings findings) {
        this.findings = findings;
    }

    @Override
    public Interest interest() {
        return Interest.words(WORDS.words());
    }

    @Override
    public void accept(Line line) {
        if (!line.containsAny(WORDS)) {
            return;
        }
        String text = line.text();
        if (text.contains(NO_PROVIDER) || text.contains(PROVIDER_NOT_LOADED)) {
            findings.add("no-rdma-devices", Severity.ERROR, "libibverbs sees RDMA devices but has no user-space provider for them, so it can use none",
                    "install rdma-core's providers (libibverbs1 / ibverbs-providers, or the NIC vendor's) in the image, matching the "
                            + "kernel driver; " + CAUSES, line);
        } else if (startsWithZeroHcas(text) || NONE.stream().anyMatch(text::contains)) {
            findings.add("no-rdma-devices", Severity.ERROR, "no RDMA device is visible to this process", CAUSES, line);
        } else if (UNOPENABLE.stream().anyMatch(text::contains)) {
            findings.add("rdma-device-open-failed", Severity.ERROR, "an RDMA device is listed but cannot be opened",
                    "in a container, the device's /dev/infiniband/uverbsN is not mounted or not accessible (request the RDMA resource; "
                            + "a device another pod was given is listed but not yours); else the user-space provider does not support "
                            + "the device or its firmware (rdma-core version, ibv_devinfo -v)", line);
        }
    }

    private static boolean startsWithZeroHcas(String text) {
        return text.startsWith("0 HCAs found");
    }

    @Override
    public long hits() {
        return 0;
    }

    @Override
    public void finish(LogReport.Builder report) {
        // every finding is made line by line
    }
}
