package io.railyard.diagnose.logs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The other tools people paste for a port's state: {@code ibdev2netdev} ({@code mlx5_3 port 1 ==> net1 (Down)}),
 * {@code lshca}'s table, and iPXE's {@code ifstat} ({@code [Link:down, ...]}). The kind is {@code port-state}; the tool
 * is named in the report.
 */
final class PortStateAnalyzer implements Analyzer {
    /** {@code mlx5_3 port 1 ==> net1 (Down)}, or aligned by {@code column -t}. */
    private static final Pattern IBDEV2NETDEV = Pattern.compile("^\\s*(\\w+)\\s+port\\s+(\\d+)\\s+==>\\s+(\\S+)\\s+\\((Up|Down)\\)");
    private static final Pattern IPXE_NET = Pattern.compile("^\\s*(?:##\\s*)?(net\\d+): (\\S+) using (\\S+) on (\\S+)");
    private static final Pattern IPXE_LINK = Pattern.compile("\\[Link:(up|down),");
    private static final String DOWN_REMEDY = "check the cable, the optic and the switch port, then the driver (railyard doctor's link check)";
    private static final int MAX_PORTS = 1024;

    private final Findings findings;
    private final Map<String, Long> hitsByTool = new HashMap<>();
    private final List<PortFacts> ports = new ArrayList<>();
    /** lshca's column of each name, from its header row; empty outside a table. */
    private Map<String, Integer> lshcaColumns = Map.of();
    private String ipxeNet;

    PortStateAnalyzer(Findings findings) {
        this.findings = findings;
    }

    @Override
    public Interest interest() {
        return Interest.words(List.of("==>", "|", "using ", "[Link"));
    }

    @Override
    public void accept(Line line) {
        if (line.contains("==>")) {
            ibdev2netdev(line);
        } else if (line.contains("|")) {
            lshca(line);
        } else if (line.contains("using ") || line.contains("[Link")) {
            ipxe(line);
        }
    }

    private void ibdev2netdev(Line line) {
        Matcher port = IBDEV2NETDEV.matcher(line.text());
        if (!port.find()) {
            return;
        }
        count("ibdev2netdev");
        String name = port.group(1) + ":" + port.group(2);
        add(name, port.group(4));
        if (port.group(4).equals("Down")) {
            findings.add("port-down", Severity.ERROR, "port " + name + " (" + port.group(3) + ") is Down", DOWN_REMEDY, line);
        }
    }

    /** lshca: "PCI_addr | RDMA | Net | Numa | LnkStat | ..." then rows; older releases "Link | State | PCI addr | RDMA | ...". */
    private void lshca(Line line) {
        String[] cells = line.text().split("\\|");
        List<String> names = new ArrayList<>();
        for (String cell : cells) {
            names.add(cell.strip());
        }
        if (names.contains("RDMA") && (names.contains("LnkStat") || names.contains("State"))) {
            lshcaColumns = new HashMap<>();
            for (int i = 0; i < names.size(); i++) {
                lshcaColumns.put(names.get(i), i);
            }
            count("lshca");
            return;
        }
        Integer rdma = lshcaColumns.get("RDMA");
        Integer state = lshcaColumns.getOrDefault("LnkStat", lshcaColumns.get("State"));
        if (rdma == null || state == null || names.size() <= Math.max(rdma, state) || !names.get(rdma).matches("\\w+")) {
            return;
        }
        count("lshca");
        String value = names.get(state);
        add(names.get(rdma), value);
        boolean active = value.startsWith("actv") || value.equalsIgnoreCase("active") || value.equalsIgnoreCase("up");
        if (!active && !value.isEmpty()) {
            findings.add("port-down", Severity.ERROR, "port " + names.get(rdma) + " is " + value, DOWN_REMEDY, line);
        }
    }

    private void ipxe(Line line) {
        String text = line.text();
        Matcher net = IPXE_NET.matcher(text);
        if (net.find()) {
            ipxeNet = net.group(1) + " (" + net.group(3) + " on " + net.group(4) + ")";
            count("ipxe-ifstat");
            return;
        }
        Matcher link = IPXE_LINK.matcher(text);
        if (link.find() && ipxeNet != null) {
            count("ipxe-ifstat");
            add(ipxeNet, link.group(1));
            if (link.group(1).equals("down")) {
                findings.add("port-down", Severity.ERROR, "iPXE's " + ipxeNet + " has no link", DOWN_REMEDY, line);
            }
        }
    }

    private void count(String tool) {
        hitsByTool.merge(tool, 1L, Long::sum);
    }

    private void add(String port, String state) {
        if (ports.size() < MAX_PORTS) {
            ports.add(new PortFacts(port, state, null, null, null, null, null, null, Map.of()));
        }
    }

    /** The tool with the most lines recognized. */
    String tool() {
        return hitsByTool.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null);
    }

    @Override
    public long hits() {
        return hitsByTool.values().stream().mapToLong(Long::longValue).sum();
    }

    @Override
    public void finish(LogReport.Builder report) {
        if (hits() > 0) {
            report.ports.addAll(ports);
        }
    }
}
