package io.railyard.cli;

import java.net.InetSocketAddress;

/** A {@code HOST:PORT} option value. */
final class HostPort {
    private HostPort() {}

    static InetSocketAddress parse(String option, String value) {
        int colon = value.lastIndexOf(':');
        try {
            int port = Integer.parseInt(value.substring(colon + 1));
            if (colon < 0 || port < 0 || port > 65535) {
                throw new NumberFormatException();
            }
            String host = value.substring(0, colon);
            return host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
        } catch (NumberFormatException e) {
            throw new Railyard.UsageException(option + " " + value + " is not HOST:PORT (e.g. 0.0.0.0:8081)");
        }
    }
}
