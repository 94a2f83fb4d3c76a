package io.railyard.agent.metrics;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;

/** Serves {@code /metrics} (Prometheus text or OpenMetrics, as the scraper asks) for a registry. */
public final class MetricsServer implements AutoCloseable {
    private final HTTPServer server;

    private MetricsServer(HTTPServer server) {
        this.server = server;
    }

    public static MetricsServer start(InetSocketAddress address, PrometheusRegistry registry) {
        try {
            return new MetricsServer(HTTPServer.builder()
                    .hostname(address.getHostString())
                    .port(address.getPort())
                    .registry(registry)
                    .buildAndStart());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve metrics on " + address + ": " + e.getMessage(), e);
        }
    }

    public int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        server.close();
    }
}
