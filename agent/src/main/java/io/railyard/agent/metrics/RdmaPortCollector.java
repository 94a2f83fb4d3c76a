package io.railyard.agent.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.railyard.node.Attr;
import io.railyard.node.Counters;
import io.railyard.node.Gid;
import io.railyard.node.GidReader;
import io.railyard.node.LinkState;
import io.railyard.node.NetdevReader;
import io.railyard.node.Rate;
import io.railyard.node.Sysfs;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every RDMA port's state and counters, read from sysfs when Prometheus scrapes: a device that vanished has no
 * series, a malformed file is skipped and counted in {@code railyard_scrape_malformed_files_total}.
 */
public final class RdmaPortCollector implements MultiCollector {
    static final String PREFIX = "railyard_rdma_";

    private final Sysfs sysfs;
    private final boolean hardwareCounters;
    private final AtomicLong malformedFiles = new AtomicLong();

    /** Reads the ports under {@code root}, keeping their files open between scrapes. */
    public RdmaPortCollector(Path root) {
        this(root, true);
    }

    /** @param hardwareCounters whether the driver's hw_counters are exported (the agent's metrics.hardwareCounters) */
    public RdmaPortCollector(Path root, boolean hardwareCounters) {
        this.sysfs = Sysfs.keepingFilesOpen(root);
        this.hardwareCounters = hardwareCounters;
    }

    /** One scrape at a time: the files kept open are read in place. */
    @Override
    public synchronized MetricSnapshots collect() {
        try {
            return collectRound();
        } finally {
            sysfs.endRound();
        }
    }

    private MetricSnapshots collectRound() {
        long start = System.nanoTime();
        MetricFamilies metrics = new MetricFamilies();
        Path classDir = sysfs.resolve("sys/class/infiniband");
        for (String device : sysfs.list(classDir)) {
            Path dir = classDir.resolve(device);
            sysfs.renewIfReplaced(dir);
            Sysfs.Directory files = sysfs.directory(dir);
            metrics.info("railyard_rdma", "The RDMA device's board, firmware and type",
                    Labels.of("board_id", files.read("board_id").orElse(""), "device", device,
                            "firmware_version", files.read("fw_ver").orElse(""), "hca_type", files.read("hca_type").orElse("")));
            for (String port : sysfs.list(dir.resolve("ports"))) {
                if (port.chars().allMatch(Character::isDigit)) {
                    collectPort(metrics, device, Integer.parseInt(port), dir);
                }
            }
        }
        metrics.counter("railyard_scrape_malformed_files", "Sysfs files skipped because they held no value", Labels.EMPTY,
                malformedFiles.get());
        metrics.gauge("railyard_scrape_duration_seconds", "Time this scrape spent reading the RDMA ports", Labels.EMPTY,
                (System.nanoTime() - start) / 1e9);
        return metrics.build();
    }

    private void collectPort(MetricFamilies metrics, String device, int port, Path hcaDir) {
        Path dir = hcaDir.resolve("ports").resolve(String.valueOf(port));
        Labels labels = Labels.of("device", device, "port", String.valueOf(port));
        Sysfs.Directory files = sysfs.directory(dir);
        value(files.read("state", LinkState::parse)).ifPresent(state -> metrics.gauge(PREFIX + "state_id",
                "Logical port state: 1 down, 2 init, 3 armed, 4 active, 5 active defer", labels, state.id()));
        value(files.read("phys_state", LinkState::parse)).ifPresent(state -> metrics.gauge(PREFIX + "physical_state_id",
                "Physical port state: 1 sleep, 2 polling, 3 disabled, 4 shift, 5 link up, 6 link error recovery, 7 phy test",
                labels, state.id()));
        value(files.read("rate", Rate::parse)).ifPresent(rate -> metrics.gauge(PREFIX + "rate_bytes_per_second",
                "The port's signalling rate", labels, rate.bytesPerSecond()));
        String linkLayer = files.read("link_layer").orElse("");
        counters(metrics, labels, Counters.read(sysfs, dir.resolve("counters")), SysfsCounterNames.COUNTERS);
        counters(metrics, labels, Counters.read(sysfs, dir.resolve("counters_ext")), SysfsCounterNames.LEGACY);
        if (hardwareCounters) {
            counters(metrics, labels, Counters.read(sysfs, dir.resolve("hw_counters")), SysfsCounterNames.HARDWARE);
        }
        linkFacts(metrics, labels, port, linkLayer, dir, hcaDir);
    }

    private void counters(MetricFamilies metrics, Labels labels, Counters counters, Map<String, SysfsCounterNames.Mapping> names) {
        malformedFiles.addAndGet(counters.malformed().size());
        boolean hardware = names == SysfsCounterNames.HARDWARE;
        counters.values().forEach((file, raw) -> {
            double value = unsigned(raw);
            SysfsCounterNames.Mapping mapping = names.get(file);
            if (mapping != null) {
                metrics.counter(mapping.metric(), mapping.help(), labels, value * mapping.factor());
            } else if (hardware && file.equals("lifespan")) {
                metrics.gauge(PREFIX + "lifespan_seconds", "How long the driver may serve cached hardware counter values",
                        labels, Math.floor(value / 1000));
            } else if (hardware) {
                metrics.counter(PREFIX + "hw_events", "Events a hardware counter of the driver's hw_counters directory counts, by file name",
                        labels.add("counter", file), value);
            }
        });
    }

    /** Link layer, the RoCE v2 IPv4 GID and its index, the netdev and its MTU. */
    private void linkFacts(MetricFamilies metrics, Labels labels, int port, String linkLayer, Path portDir, Path hcaDir) {
        Optional<Gid> gid = linkLayer.equals("Ethernet") ? GidReader.firstRoceV2Ipv4(sysfs, portDir) : Optional.empty();
        Attr<String> netdev = NetdevReader.nameForPort(sysfs, port, gid.flatMap(g -> Optional.ofNullable(g.netdev().orElse(null))),
                hcaDir.resolve("device"));
        String netdevName = netdev.orElse("");
        metrics.info(PREFIX + "port", "The port's link layer, netdev and RoCE v2 IPv4 GID (empty when it has none)",
                labels.add("gid", gid.map(Gid::displayAddress).orElse("")).add("link_layer", linkLayer).add("netdev", netdevName));
        gid.ifPresent(g -> metrics.gauge(PREFIX + "roce_v2_gid_index", "The GID index NCCL should use on this RoCE port (NCCL_IB_GID_INDEX)",
                labels, g.index()));
        if (!netdevName.isEmpty()) {
            value(sysfs.readInt(sysfs.resolve("sys/class/net").resolve(netdevName).resolve("mtu"))).ifPresent(mtu ->
                    metrics.gauge(PREFIX + "netdev_mtu_bytes", "The MTU of the port's netdev; RoCE needs 4192 or more for a 4096-byte RoCE MTU",
                            labels.add("netdev", netdevName), mtu));
        }
    }

    /** A value, or empty; a file that exists but does not parse is counted as malformed. */
    private <T> Optional<T> value(Attr<T> attr) {
        if (attr instanceof Attr.Unknown<T>(String reason) && !reason.endsWith(": missing")) {
            malformedFiles.incrementAndGet();
        }
        return Optional.ofNullable(attr.orElse(null));
    }

    private static double unsigned(long value) {
        return value >= 0 ? value : (double) (value >>> 1) * 2 + (value & 1);
    }
}
