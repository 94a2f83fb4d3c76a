package io.railyard.agent.podresources;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot.InfoDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which pod holds each RDMA port: {@code railyard_rdma_port_allocation_info}, one series per port a container
 * holds, so that any port series joins to its job with {@code * on(device, port) group_left(namespace, pod,
 * trainingjob, rank)}. The kubelet is asked on the first scrape after a pod of the node changed ({@link #markStale()}),
 * after its socket went or was made anew (a kubelet that stopped or restarted), and at least once per {@code maxAge}
 * (at most {@value #LONGEST_MAX_AGE_SECONDS} s, so that a kubelet that starts refusing is seen within it): a List costs
 * more than the rest of a small node's scrape, and the listing changes only when pods start and end. While the kubelet
 * cannot be asked, the series are absent and {@code railyard_rdma_podresources_up} is 0, said once in the log.
 */
public final class PortAllocationCollector implements MultiCollector {
    private static final Logger LOG = LoggerFactory.getLogger(PortAllocationCollector.class);
    /** The longest a listing serves scrapes. */
    public static final long LONGEST_MAX_AGE_SECONDS = 30;

    private final PodResourcesClient kubelet;
    private final PortHolders holders;
    private final BiFunction<String, String, PodIdentities.Identity> identities;
    private final Clock clock;
    private final Duration maxAge;
    private Instant listedAt;
    private Object listedFrom;
    private List<HeldPort> held = List.of();
    private boolean up = true;
    private volatile boolean stale;
    private MetricSnapshots snapshots;

    /**
     * @param identities the TrainingJob and rank of a pod by namespace and name
     * @param maxAge how long one listing serves scrapes, at most {@value #LONGEST_MAX_AGE_SECONDS} s
     */
    public PortAllocationCollector(PodResourcesClient kubelet, PortHolders holders,
            BiFunction<String, String, PodIdentities.Identity> identities, Clock clock, Duration maxAge) {
        this.kubelet = kubelet;
        this.holders = holders;
        this.identities = identities;
        this.clock = clock;
        if (maxAge.compareTo(Duration.ofSeconds(LONGEST_MAX_AGE_SECONDS)) > 0) {
            throw new IllegalArgumentException("a listing serves scrapes for at most " + LONGEST_MAX_AGE_SECONDS + " s, not " + maxAge);
        }
        this.maxAge = maxAge;
    }

    @Override
    public synchronized MetricSnapshots collect() {
        Instant now = clock.instant();
        Object socket = kubelet.socketIdentity();
        if (stale || listedAt == null || !now.isBefore(listedAt.plus(maxAge)) || !Objects.equals(socket, listedFrom)) {
            stale = false;
            refresh();
            listedAt = now;
            listedFrom = socket;
            snapshots = snapshots();
        }
        return snapshots;
    }

    /** The series of one listing, built once: a pod's labels change only with an event that makes the listing stale. */
    private MetricSnapshots snapshots() {
        InfoSnapshot.Builder allocation = InfoSnapshot.builder().name("railyard_rdma_port_allocation")
                .help("The container holding an RDMA port, with its TrainingJob and rank (empty for pods the operator did not make)");
        for (HeldPort port : held) {
            PodIdentities.Identity identity = identities.apply(port.namespace(), port.pod());
            allocation.dataPoint(InfoDataPointSnapshot.builder().labels(Labels.of(
                    "container", port.container(), "device", port.device(), "namespace", port.namespace(), "pod", port.pod(),
                    "port", String.valueOf(port.port()), "rank", identity.rank(), "resource", port.resource(),
                    "trainingjob", identity.trainingJob())).build());
        }
        GaugeSnapshot upGauge = GaugeSnapshot.builder().name("railyard_rdma_podresources_up")
                .help("1 when the kubelet's PodResources API answered the last listing")
                .dataPoint(GaugeDataPointSnapshot.builder().value(up ? 1 : 0).build()).build();
        return held.isEmpty() ? MetricSnapshots.of(upGauge) : MetricSnapshots.of(allocation.build(), upGauge);
    }

    /** The next scrape asks the kubelet again. */
    public void markStale() {
        stale = true;
    }

    private void refresh() {
        try {
            held = holders.of(kubelet.list());
            if (!up) {
                LOG.info("the kubelet's PodResources API answers again at {}: attributing ports to pods", kubelet.socket());
            }
            up = true;
        } catch (PodResourcesClient.UnavailableException e) {
            if (up) {
                LOG.warn("{}: ports are not attributed to pods until it answers", e.getMessage());
            }
            held = List.of();
            up = false;
        }
    }
}
