package io.railyard.fabric;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads {@code ibqueryerrors} output (plain, {@code -r}, {@code --data}, {@code --details}) into one {@link PortErrors} per port. */
public final class IbQueryErrors {
    private static final Pattern NODE = Pattern.compile("^Errors for (?:0x[0-9a-fA-F]+ )?\"(.*)\"");
    private static final Pattern PORT = Pattern.compile("^\\s*GUID 0x([0-9a-fA-F]+) port (\\w+):(.*)$");
    private static final Pattern COUNTER = Pattern.compile("\\[(\\w+) == (\\d+)");

    private IbQueryErrors() {}

    /** Ports with their counters; the {@code port ALL} aggregates of switches are not ports and are left out. */
    public static List<PortErrors> parse(List<String> lines) {
        List<PortErrors> ports = new ArrayList<>();
        String description = "";
        boolean recognized = false;
        for (String line : lines) {
            Matcher node = NODE.matcher(line);
            if (node.find()) {
                description = node.group(1);
                recognized = true;
                continue;
            }
            Matcher port = PORT.matcher(line);
            if (!port.find()) {
                recognized |= line.startsWith("## Summary");
                continue;
            }
            recognized = true;
            if (port.group(2).equals("ALL")) {
                continue;
            }
            Map<String, Long> counters = new LinkedHashMap<>();
            Matcher counter = COUNTER.matcher(port.group(3));
            while (counter.find()) {
                counters.put(counter.group(1), Long.parseLong(counter.group(2)));
            }
            ports.add(new PortErrors(Guid.parse(port.group(1)), description, Integer.parseInt(port.group(2)), counters, line.strip()));
        }
        if (!recognized && lines.stream().anyMatch(line -> !line.isBlank())) {
            throw new FabricInputException("no 'Errors for' or summary line found: this is not ibqueryerrors output");
        }
        return ports;
    }
}
