package io.railyard.diagnose.logs;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The devices NCCL's transports say they use ({@code NET/IB : Using [0]mlx5_0:1/RoCE ...}, {@code NET/Socket : Using
 * [0]eth0:10.0.0.1<0>}): the HCAs and their link layers, the socket interfaces, and the first init line of each.
 */
final class NcclDevices {
    private static final String IB_USING = ": Using [";
    private static final Pattern NET_DEVICE = Pattern.compile("\\[\\d+\\]\\s*([\\w.-]+:\\d+)/(IB|RoCE)");
    private static final Pattern NET_USING = Pattern.compile("NET/([\\w.-]+) ?: Using ");
    private static final int MAX_HCAS = 256;

    final Set<String> hcas = new LinkedHashSet<>();
    boolean anyIb;
    boolean anyRoce;
    String socketInterfaces;
    /** The init lines that name the networks NCCL set up (number and text: a Line is reused), for an inference. */
    InitLine ibInit;
    InitLine socketInit;
    private String lastDevices;
    /** The end of the last such line, from just before ": Using [": matched in place against the next rank's. */
    private String lastDevicesKey;

    /** Whether this is the last NET/... Using line again, but for the out-of-band address: matched in place. */
    boolean repeated(Line line) {
        if (lastDevicesKey == null || !line.contains(IB_USING)) {
            return false;
        }
        int using = line.indexOf(IB_USING, 0);
        int oob = line.indexOf("; OOB", using);
        int keyFrom = Math.max(using - 7, 0); // "NET/IB " or "Socket " before ": Using [", then the devices
        return (oob < 0 ? line.length() : oob) - keyFrom == lastDevicesKey.length() && line.startsWith(lastDevicesKey, keyFrom);
    }

    /** A {@code NET/IB : Using [0]mlx5_0:1/IB ...} or {@code NET/Socket : Using [0]eth0:...} line: the devices NCCL set up. */
    void read(Line line) {
        if (!line.contains(IB_USING) || repeated(line)) {
            return; // every rank says it again for every communicator, with only its own out-of-band address changed
        }
        int using = line.indexOf(IB_USING, 0);
        int oob = line.indexOf("; OOB", using);
        int end = oob < 0 ? line.length() : oob;
        String text = line.text();
        lastDevicesKey = text.substring(Math.max(using - 7, 0), end);
        String devices = text.substring(Math.max(text.lastIndexOf("NET/", using), 0), end);
        if (devices.equals(lastDevices)) {
            return;
        }
        lastDevices = devices;
        Matcher net = NET_USING.matcher(text);
        if (!net.find()) {
            return;
        }
        if (net.group(1).equals("Socket")) {
            socketInterfaces = text.substring(net.end()).strip();
            socketInit = socketInit == null ? new InitLine(line.number(), text) : socketInit;
            return;
        }
        ibInit = ibInit == null ? new InitLine(line.number(), text) : ibInit;
        Matcher device = NET_DEVICE.matcher(text);
        while (device.find() && hcas.size() < MAX_HCAS) {
            hcas.add(device.group(1));
            anyRoce |= device.group(2).equals("RoCE");
            anyIb |= device.group(2).equals("IB");
        }
    }
}
