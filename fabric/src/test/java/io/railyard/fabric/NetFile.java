package io.railyard.fabric;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** An ibsim topology file written by a test: switches, HCAs and the cables between them, each cable on both ends. */
public final class NetFile {
    private record Node(String kind, int ports, String description) {}

    private final Map<String, Node> nodes = new LinkedHashMap<>();
    private final Map<String, List<String>> ports = new LinkedHashMap<>();
    private final List<String> counters = new ArrayList<>();

    /** A Mellanox-style switch: its description carries the name, as {@code MF0;leaf-01:MQM8700/U1}. */
    public NetFile switchNamed(String name) {
        nodes.put(name, new Node("Switch", 36, "MF0;" + name + ":MQM8700/U1"));
        return this;
    }

    /** An HCA {@code "<host> <device>"} with one port. */
    public NetFile hca(String host, String device) {
        nodes.put(host + "-" + device, new Node("Hca", 1, host + " " + device));
        return this;
    }

    public NetFile cable(String a, int portA, String b, int portB) {
        return cable(a, portA, b, portB, "");
    }

    /** A cable; {@code options} such as {@code w=1} (one lane) or {@code e=3} (EDR at most) are set on both ends. */
    public NetFile cable(String a, int portA, String b, int portB, String options) {
        ports.computeIfAbsent(a, n -> new ArrayList<>()).add("[" + portA + "]\t\"" + b + "\"[" + portB + "]" + (options.isEmpty() ? "" : "\t" + options));
        ports.computeIfAbsent(b, n -> new ArrayList<>()).add("[" + portB + "]\t\"" + a + "\"[" + portA + "]" + (options.isEmpty() ? "" : "\t" + options));
        return this;
    }

    public NetFile counter(String node, int port, String counter, long value) {
        counters.add("do PerformanceSet \"" + node + "\"[" + port + "] PortCounters." + counter + "=" + value);
        return this;
    }

    /** 4X HDR links unless a cable says otherwise. */
    public String text() {
        StringBuilder text = new StringBuilder("width=3\nspeed=7\nextspeed=7\n\nswitchguid=0xb8cef60300b00000\ncaguid=0x043f720300f00000\n\n");
        nodes.forEach((id, node) -> {
            text.append("vendid=0x02c9\n").append(node.kind).append('\t').append(node.ports).append(" \"").append(id).append("\"\t\t# \"")
                    .append(node.description).append('"').append(node.kind.equals("Switch") ? " enhanced port 0" : "").append('\n');
            ports.getOrDefault(id, List.of()).forEach(port -> text.append(port).append('\n'));
            text.append('\n');
        });
        counters.forEach(counter -> text.append(counter).append('\n'));
        return text.toString();
    }
}
