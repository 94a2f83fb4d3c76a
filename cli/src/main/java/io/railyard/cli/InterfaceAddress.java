package io.railyard.cli;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Comparator;

/** The address a server of the job's own binds to: an interface's (its IPv4 address first), or every address. */
final class InterfaceAddress {
    private InterfaceAddress() {}

    /** Null (every address) for no name; a name the pod has no such interface for is a usage error naming what it has. */
    static InetAddress of(String name) throws SocketException {
        if (name == null || name.isBlank()) {
            return null;
        }
        NetworkInterface nic = NetworkInterface.getByName(name);
        if (nic == null || nic.inetAddresses().findAny().isEmpty()) {
            throw new Railyard.UsageException("--bind-interface " + name + ": no such interface with an address here (it has "
                    + NetworkInterface.networkInterfaces().map(NetworkInterface::getName).sorted().toList() + ")");
        }
        return nic.inetAddresses().min(Comparator.comparing(address -> address instanceof Inet4Address ? 0 : 1)).orElseThrow();
    }
}
