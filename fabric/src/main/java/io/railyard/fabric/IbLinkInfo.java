package io.railyard.fabric;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads {@code iblinkinfo} output (plain, {@code -d} or {@code -l}) into one {@link LinkState} per port line. */
public final class IbLinkInfo {
    private static final Pattern SWITCH = Pattern.compile("^Switch:\\s+0x([0-9a-fA-F]+)\\s+(.*):\\s*$");
    private static final Pattern CA = Pattern.compile("^CA:\\s+(.*):\\s*$");
    /** [port GUID or -l's node GUID] ["description" of -l] lid port[..] ==( [width rate Gbps] state/ physical)==> */
    private static final Pattern PORT = Pattern.compile(
            "^\\s*(?:0x([0-9a-fA-F]+)\\s+)?(?:\"\\s*([^\"]*)\"\\s+)?(\\d+)\\s+(\\d+)\\[[^]]*\\]\\s+==\\(\\s*(?:(\\d+X)\\s+([\\d.]+)\\s+Gbps\\s+)?"
                    + "(\\w+)/\\s*(\\w+)\\s*\\)==>");

    private IbLinkInfo() {}

    public static List<LinkState> parse(List<String> lines) {
        List<LinkState> ports = new ArrayList<>();
        Guid switchGuid = null;
        String description = "";
        for (String line : lines) {
            Matcher switchHeader = SWITCH.matcher(line);
            if (switchHeader.find()) {
                switchGuid = Guid.parse(switchHeader.group(1));
                description = switchHeader.group(2).strip();
                continue;
            }
            Matcher caHeader = CA.matcher(line);
            if (caHeader.find()) {
                switchGuid = null;
                description = caHeader.group(1).strip();
                continue;
            }
            Matcher port = PORT.matcher(line);
            if (!port.find()) {
                continue;
            }
            Guid guid = port.group(1) != null ? Guid.parse(port.group(1)) : switchGuid;
            if (guid == null) {
                continue;
            }
            ports.add(new LinkState(guid, port.group(2) != null ? port.group(2).strip() : description, Integer.parseInt(port.group(4)),
                    port.group(7), port.group(8), port.group(5) == null ? "" : port.group(5),
                    port.group(6) == null ? 0 : Double.parseDouble(port.group(6)), line.strip()));
        }
        if (ports.isEmpty() && lines.stream().anyMatch(line -> !line.isBlank())) {
            throw new FabricInputException("no port line found: this is not iblinkinfo output");
        }
        return ports;
    }
}
