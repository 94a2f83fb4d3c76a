package io.railyard.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;

/** A {@code HOST:PORT} option value, and the server listening on it. */
final class HostPort {
    /** Starts a server on an address. */
    interface Server<T> {
        T start(InetSocketAddress address) throws IOException;
    }

    private HostPort() {}

    /** Starts the server on the address an option gave; an address that cannot be listened on is that option's error. */
    static <T> T listen(String option, InetSocketAddress address, Server<T> server) {
        try {
            return server.start(address);
        } catch (IOException | UncheckedIOException e) {
            Throwable cause = e instanceof UncheckedIOException unchecked ? unchecked.getCause() : e;
            throw new Railyard.UsageException(option + " " + address.getHostString() + ":" + address.getPort() + " cannot be listened on: "
                    + cause.getMessage() + " (give a free port, and an address of this host or 0.0.0.0)");
        }
    }

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
