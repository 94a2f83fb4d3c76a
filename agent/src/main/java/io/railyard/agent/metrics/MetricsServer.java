package io.railyard.agent.metrics;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;

/** Serves {@code /metrics} (Prometheus text or OpenMetrics, as the scraper asks) for a registry. */
public final class MetricsServer implements AutoCloseable {
    private final HTTPServer server;
    private final InetSocketAddress address;

    private MetricsServer(HTTPServer server, InetSocketAddress address) {
        this.server = server;
        this.address = address;
    }

    public static MetricsServer start(InetSocketAddress address, PrometheusRegistry registry) {
        try {
            return new MetricsServer(HTTPServer.builder()
                    .hostname(address.getHostString())
                    .port(address.getPort())
                    .registry(registry)
                    .buildAndStart(), address);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve metrics on " + address + ": " + e.getMessage(), e);
        }
    }

    public int port() {
        return server.getPort();
    }

    /**
     * Scrapes itself over loopback {@code scrapes} times, in the background: the scrape path's code is compiled before
     * Prometheus's first scrapes rather than during them (without it the first 25 scrapes of a fresh start are about 1.4×
     * node_exporter's; bench/exporter-cold-start.sh). Costs a fraction of a CPU second once.
     */
    public void warmUp(int scrapes) {
        URI self = URI.create("http://" + (address.getAddress() == null || address.getAddress().isAnyLocalAddress() ? "127.0.0.1"
                : address.getAddress().getHostAddress().contains(":") ? "[" + address.getAddress().getHostAddress() + "]"
                : address.getAddress().getHostAddress()) + ":" + port() + "/metrics");
        Thread.ofPlatform().name("railyard-metrics-warm-up").daemon().start(() -> {
            for (int i = 0; i < scrapes; i++) {
                try {
                    HttpURLConnection connection = (HttpURLConnection) self.toURL().openConnection();
                    try (InputStream body = connection.getInputStream()) {
                        body.transferTo(OutputStream.nullOutputStream());
                    }
                } catch (IOException e) {
                    return; // closed, or the address does not take loopback connections: nothing to warm
                }
            }
        });
    }

    @Override
    public void close() {
        server.close();
    }
}
