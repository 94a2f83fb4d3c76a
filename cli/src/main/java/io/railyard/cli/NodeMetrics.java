package io.railyard.cli;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.railyard.agent.metrics.DoctorGauges;
import io.railyard.agent.metrics.MetricsServer;
import io.railyard.agent.metrics.RdmaPortCollector;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** {@code /metrics} for a node: its RDMA ports read at scrape time, the doctor's checks refreshed every minute, and more. */
final class NodeMetrics implements AutoCloseable {
    private static final long DOCTOR_PERIOD_SECONDS = 60;
    /** Enough for the scrape path to be compiled by C2 with the agent's JVM flags. */
    private static final int WARM_UP_SCRAPES = 200;

    private final MetricsServer server;
    private final ScheduledExecutorService doctor;

    private NodeMetrics(MetricsServer server, ScheduledExecutorService doctor) {
        this.server = server;
        this.doctor = doctor;
    }

    /** @param hardwareCounters whether the ports' driver counters are exported */
    static NodeMetrics start(InetSocketAddress address, Path root, String rdmaResource, boolean hardwareCounters, MultiCollector... more) {
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new RdmaPortCollector(root, hardwareCounters));
        DoctorGauges doctorGauges = new DoctorGauges(root, rdmaResource);
        registry.register(doctorGauges);
        for (MultiCollector collector : more) {
            registry.register(collector);
        }
        ScheduledExecutorService doctor = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("railyard-doctor").daemon().factory());
        doctor.scheduleWithFixedDelay(doctorGauges::refresh, 0, DOCTOR_PERIOD_SECONDS, TimeUnit.SECONDS);
        MetricsServer server = MetricsServer.start(address, registry);
        server.warmUp(WARM_UP_SCRAPES);
        return new NodeMetrics(server, doctor);
    }

    int port() {
        return server.port();
    }

    @Override
    public void close() {
        doctor.shutdownNow();
        server.close();
    }
}
