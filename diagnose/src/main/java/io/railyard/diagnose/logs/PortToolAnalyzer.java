package io.railyard.diagnose.logs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * ibstat, ibv_devinfo and ibportstate (smpquery portinfo) output: each port's state, physical state, link layer, LIDs
 * and MTU.
 */
final class PortToolAnalyzer implements Analyzer {
    private static final Pattern DEVICE = Pattern.compile("^(?:CA '([^']+)'|hca_id:\\s*(\\S+))");
    private static final Pattern PORT = Pattern.compile("^\\s*(?:Port (\\d+):|port:\\s*(\\d+))\\s*$");
    private static final Pattern FIELD = Pattern.compile("^\\s*([A-Za-z_ ]+?)\\s*:\\s*(.*?)\\s*$");
    /** ibstat's own field names: a paste that lost its tabs still has them at the start of its lines. */
    private static final Pattern UNINDENTED = Pattern.compile("^(?:Port \\d+:|State:|Physical state:|Rate:|Base lid:|SM lid:|Link layer:)");
    private static final Pattern IBPANIC = Pattern.compile("ibpanic: .*?IB device '([^']+)' failed: (.*)");
    private static final Pattern MTU = Pattern.compile("(\\d+) \\(\\d\\)");
    private static final Pattern PORT_INFO = Pattern.compile("^# Port info: Lid (\\d+) port (\\d+)");
    private static final Pattern DOTTED_FIELD = Pattern.compile("^(\\w+):\\.{3,}(.*?)\\s*$");
    private static final String PORT_INFO_HEADER = "# Port info:";
    private static final int MAX_PORTS = 1024;
    private static final String TAB = "\t";
    private static final String SPACE = " ";
    private static final String CA = "CA '";
    private static final String HCA = "hca_id:";
    private static final String IB_DEVICES = "IB devices";

    private final Findings findings;
    private long ibstatHits;
    private long devinfoHits;
    private long portInfoHits;
    /** Inside ibportstate's (smpquery's) "Name:....value" fields of one port. */
    private boolean readingPortInfo;
    private String device;
    private Port port;
    private final List<PortFacts> ports = new ArrayList<>();

    /** The port being read; judged when the next one starts or the input ends. */
    private static final class Port {
        final String name;
        final long line;
        final String header;
        String state;
        String physicalState;
        String linkLayer;
        String rate;
        Integer lid;
        Integer smLid;
        Integer activeMtu;

        Port(String name, Line line) {
            this.name = name;
            this.line = line.number();
            this.header = line.text();
        }
    }

    /** {@code ibv_devinfo -l}'s count. */
    private static final Pattern HCAS_FOUND = Pattern.compile("^\\d+ HCAs? found:?$");

    PortToolAnalyzer(Findings findings) {
        this.findings = findings;
    }

    @Override
    public Interest interest() {
        return new Interest(List.of("ibpanic:", PORT_INFO_HEADER, "HCA", "ort", CA, HCA, IB_DEVICES),
                line -> readingPortInfo || device != null || port != null); // the rest of a block once its header was read
    }

    @Override
    public void accept(Line line) {
        if (line.startsWith("ibpanic:", 0)) {
            ibpanic(line);
            return;
        }
        if (line.startsWith(PORT_INFO_HEADER, 0) || readingPortInfo) {
            portInfo(line);
            return;
        }
        if (line.contains("HCA") && HCAS_FOUND.matcher(line.text().strip()).find()) {
            devinfoHits++; // ibv_devinfo -l's count (RdmaDeviceAccessAnalyzer makes the finding for 0)
            return;
        }
        boolean inDevice = device != null || port != null;
        boolean indented = line.startsWith(TAB, 0) || line.startsWith(SPACE, 0)
                || ((inDevice || line.startsWith("Port ", 0)) && UNINDENTED.matcher(line.text()).find());
        if (!indented && !line.startsWith(CA, 0) && !line.startsWith(HCA, 0) && !line.contains(IB_DEVICES)) {
            return;
        }
        if (indented && !inDevice && !line.contains("ort")) {
            return; // a port block cut from its device's header starts at its "Port 1:" or "port: 1"
        }
        String text = line.text();
        Matcher deviceLine = DEVICE.matcher(text);
        if (deviceLine.find()) {
            close();
            readingPortInfo = false;
            if (deviceLine.group(1) != null) {
                device = deviceLine.group(1);
                ibstatHits++;
            } else {
                device = deviceLine.group(2);
                devinfoHits++;
            }
            return;
        }
        String bare = text.strip();
        if (bare.startsWith("No IB devices found") || bare.startsWith("Failed to get IB devices list")) {
            devinfoHits++; // ibv_devinfo's own words (RdmaDeviceAccessAnalyzer makes the finding)
            return;
        }
        Matcher portLine = PORT.matcher(text);
        if (portLine.find()) {
            close();
            String number = portLine.group(1) != null ? portLine.group(1) : portLine.group(2);
            port = new Port(device == null ? number : device + ":" + number, line);
            return;
        }
        if (device == null && port == null) {
            return;
        }
        Matcher field = FIELD.matcher(text);
        if (port != null && field.find()) {
            field(field.group(1), field.group(2));
        }
    }

    /** ibportstate LID PORT: "# Port info: Lid 2 port 24", then "LinkState:.....Down" and "PhysLinkState:....Disabled". */
    private void portInfo(Line line) {
        Matcher header = PORT_INFO.matcher(line.text());
        if (header.find()) {
            close();
            readingPortInfo = true;
            portInfoHits++;
            port = new Port("Lid " + header.group(1) + " port " + header.group(2), line);
            return;
        }
        if (line.startsWith(CA, 0) || line.startsWith(HCA, 0)) {
            readingPortInfo = false;
            accept(line);
            return;
        }
        Matcher field = DOTTED_FIELD.matcher(line.text());
        if (port != null && field.find()) {
            switch (field.group(1)) {
                case "LinkState" -> port.state = field.group(2);
                case "PhysLinkState" -> port.physicalState = field.group(2);
                case "LinkSpeedActive" -> port.rate = field.group(2);
                default -> { }
            }
        }
    }

    /** ibstat stops at the first device it cannot read: the ones after it are not shown. */
    private void ibpanic(Line line) {
        ibstatHits++;
        Matcher panic = IBPANIC.matcher(line.text());
        String what = panic.find() ? panic.group(1) + ": " + panic.group(2) : "a device";
        findings.add("ibstat-failed", Severity.ERROR, "ibstat stopped at " + what + "; the devices after it are not shown",
                "run ibstat on each InfiniBand device by name (ibstat mlx5_0), or ibstatus, which lists them all; an Ethernet-only"
                        + " device (Azure's mlx5_an0) or a port without its cable (Invalid argument on its rate) stops ibstat", line);
    }

    private void field(String name, String value) {
        switch (name) {
            case "State" -> { port.state = value; ibstatHits++; }
            case "Physical state" -> { port.physicalState = value; ibstatHits++; }
            case "Rate" -> port.rate = value;
            case "Base lid" -> port.lid = parse(value);
            case "SM lid" -> port.smLid = parse(value);
            case "Link layer", "link_layer" -> port.linkLayer = value;
            case "state" -> { port.state = value.replaceAll("PORT_|\\s*\\(\\d+\\)", ""); devinfoHits++; }
            case "phys_state" -> port.physicalState = value.replaceAll("\\s*\\(\\d+\\)", "");
            case "port_lid" -> port.lid = parse(value);
            case "sm_lid" -> port.smLid = parse(value);
            case "active_mtu" -> {
                Matcher mtu = MTU.matcher(value);
                port.activeMtu = mtu.find() ? Integer.parseInt(mtu.group(1)) : null;
                devinfoHits++;
            }
            default -> { }
        }
    }

    /** Records the port being read and what is wrong with it. */
    private void close() {
        Port p = port;
        port = null;
        if (p == null) {
            return;
        }
        if (ports.size() < MAX_PORTS) {
            ports.add(new PortFacts(p.name, p.state, p.physicalState, p.linkLayer, p.rate, p.lid, p.smLid, p.activeMtu, Map.of()));
        }
        boolean active = p.state != null && p.state.toUpperCase().startsWith("ACTIVE");
        boolean infiniBand = p.linkLayer == null || p.linkLayer.equals("InfiniBand");
        if (p.state != null && !active) {
            if ("LinkUp".equalsIgnoreCase(p.physicalState) && infiniBand) {
                report(p, "no-subnet-manager", Severity.ERROR, "port " + p.name + " is " + p.state
                        + " with the link up: no subnet manager has configured it", "run a subnet manager (opensm, or the switch's or UFM's SM)");
            } else {
                String why = "Polling".equalsIgnoreCase(p.physicalState) ? " (Polling): no link partner"
                        : p.physicalState == null ? "" : " (" + p.physicalState + ")";
                report(p, "port-down", Severity.ERROR, "port " + p.name + " is " + p.state + why, "Disabled".equalsIgnoreCase(p.physicalState)
                        ? "the port was turned off (an administrator or the subnet manager): enable it (ibportstate LID PORT enable) if it should carry traffic"
                        : "check the cable, the optic and the switch port, then the driver (railyard doctor's link check)");
            }
        } else if (active && infiniBand && p.smLid != null && p.smLid == 0 && p.lid != null) {
            report(p, "no-subnet-manager", Severity.ERROR, "port " + p.name + " has no SM LID",
                    "run a subnet manager (opensm, or the switch's or UFM's SM)");
        }
        if ("Ethernet".equals(p.linkLayer) && p.activeMtu != null && p.activeMtu < 4096) {
            report(p, "roce-mtu-below-4096", Severity.WARN, "RoCE port " + p.name + " runs with an active MTU of " + p.activeMtu
                    + ": below 4096", "set the netdev MTU to 9000 (the kernel needs 4096 + 96 for a 4096 RoCE MTU) and enable "
                    + "jumbo frames on the switches");
        }
    }

    private void report(Port p, String id, Severity severity, String summary, String remedy) {
        findings.add(id, severity, summary, remedy, p.line, p.header);
    }

    private static Integer parse(String value) {
        try {
            return value.startsWith("0x") ? Integer.parseInt(value.substring(2), 16) : Integer.parseInt(value);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** ibstat, ibv_devinfo or ibportstate, whichever this input looked like more. */
    String kind() {
        if (portInfoHits > ibstatHits && portInfoHits > devinfoHits) {
            return "ibportstate";
        }
        return ibstatHits >= devinfoHits ? "ibstat" : "ibv_devinfo";
    }

    @Override
    public long hits() {
        return ibstatHits + devinfoHits + portInfoHits;
    }

    @Override
    public void finish(LogReport.Builder report) {
        close();
        report.ports.addAll(ports);
    }
}
