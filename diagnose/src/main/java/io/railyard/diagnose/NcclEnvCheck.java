package io.railyard.diagnose;

import io.railyard.node.Gid;
import io.railyard.node.Hca;
import io.railyard.node.NcclDeviceFilter;
import io.railyard.node.NcclEnvironment;
import io.railyard.node.Netdev;
import io.railyard.node.NodeInventory;
import io.railyard.node.Port;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** The environment's NCCL variables checked against this node's HCAs, ports, GID tables and interfaces. */
final class NcclEnvCheck {
    static final String ID = "nccl-env";

    static CheckResult run(DoctorInput input) {
        NodeInventory node = input.node();
        Map<String, String> nccl = new TreeMap<>();
        input.environment().forEach((key, value) -> {
            if (key.startsWith("NCCL_")) {
                nccl.put(key, value);
            }
        });
        List<Port> active = node.ports().stream().filter(Port::isActive).toList();
        String suggestion = suggestion(active);
        if (nccl.isEmpty()) {
            List<String> details = suggestion.isEmpty() ? List.of() : List.of("for exactly this node's active ports: " + suggestion);
            return CheckResult.ok(ID, "no NCCL_* variables set: NCCL will use every active port it finds", details);
        }
        Findings findings = new Findings();
        nccl.forEach((key, value) -> findings.details.add(key + "=" + value));
        checkDisabled(nccl, findings);
        List<Port> selected = checkHcas(node, nccl.get(NcclEnvironment.IB_HCA), findings);
        checkGidIndex(selected, nccl.get(NcclEnvironment.IB_GID_INDEX), findings);
        checkSocketInterface(node, nccl.get("NCCL_SOCKET_IFNAME"), findings);
        if (!suggestion.isEmpty() && (!findings.failures.isEmpty() || !findings.warnings.isEmpty())) {
            findings.details.add("for exactly this node's active ports: " + suggestion);
        }
        if (!findings.failures.isEmpty()) {
            return new CheckResult(ID, CheckStatus.FAIL, String.join("; ", findings.failures), findings.details, findings.remedy());
        }
        if (!findings.warnings.isEmpty()) {
            return new CheckResult(ID, CheckStatus.WARN, String.join("; ", findings.warnings), findings.details, findings.remedy());
        }
        return CheckResult.ok(ID, "NCCL variables match this node (" + selected.size() + " ports selected)", findings.details);
    }

    private static void checkDisabled(Map<String, String> nccl, Findings findings) {
        if ("1".equals(nccl.get("NCCL_IB_DISABLE"))) {
            findings.fail("NCCL_IB_DISABLE=1 turns RDMA off: NCCL will use TCP sockets", "unset NCCL_IB_DISABLE or set it to 0");
        }
        String net = nccl.get("NCCL_NET");
        if (net != null && net.equalsIgnoreCase("Socket")) {
            findings.fail("NCCL_NET=Socket forces TCP sockets", "unset NCCL_NET, or set it to IB");
        }
    }

    /** The ports NCCL_IB_HCA selects among active ones; every active port when it is unset. */
    private static List<Port> checkHcas(NodeInventory node, String value, Findings findings) {
        List<Port> active = node.ports().stream().filter(Port::isActive).toList();
        if (value == null || value.isBlank()) {
            return active;
        }
        NcclDeviceFilter filter;
        try {
            filter = NcclDeviceFilter.parse(value);
        } catch (IllegalArgumentException e) {
            findings.fail("NCCL_IB_HCA is malformed: " + e.getMessage(), "write it as =mlx5_1:1,mlx5_2:1");
            return List.of();
        }
        List<String> names = node.hcas().stream().map(Hca::name).toList();
        for (NcclDeviceFilter.Entry entry : filter.entries()) {
            List<String> matched = filter.matches(entry, names);
            if (matched.isEmpty()) {
                findings.fail("NCCL_IB_HCA names " + entry.name() + ", which this node does not have",
                        "use this node's HCA names (" + String.join(", ", names) + ")");
            } else if (!filter.exact() && matched.size() > 1 && !filter.exclude()) {
                List<String> others = matched.stream().filter(name -> !name.equals(entry.name())).toList();
                findings.warn("NCCL_IB_HCA entry " + entry.name() + " is a prefix: it also matches " + String.join(", ", others),
                        "start the list with '=' so that names match exactly (=mlx5_1:1,...)");
            }
            for (String name : matched) {
                Optional<Port> port = entry.port() < 0 ? Optional.empty() : node.hca(name).flatMap(h -> h.port(entry.port()));
                if (entry.port() >= 0 && port.isEmpty()) {
                    findings.fail("NCCL_IB_HCA names " + name + ":" + entry.port() + ", which has no such port", "use port numbers from ibstat");
                } else if (port.isPresent() && !port.get().isActive()) {
                    findings.fail("NCCL_IB_HCA lists " + port.get().id() + ", which is " + port.get().stateText(),
                            "fix the port (see the link check) or leave it out of NCCL_IB_HCA");
                }
            }
        }
        List<Port> selected = active.stream().filter(p -> filter.selects(p.hca(), p.number())).toList();
        if (selected.isEmpty() && findings.failures.isEmpty()) {
            findings.fail("NCCL_IB_HCA=" + value + " selects no active port: NCCL will fall back to TCP sockets",
                    "list active ports of this node");
        }
        return selected;
    }

    private static void checkGidIndex(List<Port> selected, String value, Findings findings) {
        if (value == null || value.isBlank()) {
            return;
        }
        int index;
        try {
            index = Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            findings.fail("NCCL_IB_GID_INDEX=" + value + " is not a number", "set the index the gid check reports");
            return;
        }
        if (index < 0) {
            return; // -1 asks NCCL to choose
        }
        for (Port port : selected.stream().filter(Port::isRoce).toList()) {
            Optional<Gid> gid = port.gids().at(index);
            if (gid.isEmpty()) {
                findings.fail("NCCL_IB_GID_INDEX=" + index + " is empty on " + port.id(), "use the index the gid check reports");
            } else if (!gid.get().isRoceV2() || gid.get().isLinkLocal() || !gid.get().isIpv4()) {
                findings.fail("NCCL_IB_GID_INDEX=" + index + " on " + port.id() + " is " + gid.get().displayAddress() + " "
                                + gid.get().type().map(Object::toString).orElse("(type unknown)") + ", not a RoCE v2 IPv4 GID",
                        "use the RoCE v2 IPv4 index the gid check reports (ibv_devinfo -v shows the table)");
            }
        }
    }

    private static void checkSocketInterface(NodeInventory node, String value, Findings findings) {
        if (value == null || value.isBlank()) {
            return;
        }
        NcclDeviceFilter filter;
        try {
            filter = NcclDeviceFilter.parse(value);
        } catch (IllegalArgumentException e) {
            findings.fail("NCCL_SOCKET_IFNAME is malformed: " + e.getMessage(), "write it as eth0 or =eth0");
            return;
        }
        List<Netdev> chosen = node.netdevs().stream().filter(n -> filter.selects(n.name(), -1)).toList();
        if (chosen.isEmpty()) {
            findings.fail("NCCL_SOCKET_IFNAME=" + value + " matches no interface on this node",
                    "name an interface from ip link (this node has " + String.join(", ", node.netdevs().stream().map(Netdev::name).toList()) + ")");
            return;
        }
        List<Netdev> up = chosen.stream().filter(Netdev::isUp).toList();
        if (up.isEmpty()) {
            findings.fail("NCCL_SOCKET_IFNAME=" + value + " matches only interfaces that are down: "
                    + String.join(", ", chosen.stream().map(Netdev::name).toList()), "bring the interface up or name another");
        } else if (up.stream().allMatch(n -> n.name().equals("lo"))) {
            findings.warn("NCCL_SOCKET_IFNAME=" + value + " selects only lo: ranks on other nodes cannot reach it",
                    "name the interface that carries the pod or host network (e.g. eth0)");
        }
    }

    private static String suggestion(List<Port> active) {
        List<String> vars = new ArrayList<>();
        NcclEnvironment.forPorts(active).forEach((key, value) -> vars.add(key + "=" + value));
        return String.join(" ", vars);
    }

    private static final class Findings {
        final List<String> details = new ArrayList<>();
        final List<String> failures = new ArrayList<>();
        final List<String> warnings = new ArrayList<>();
        final List<String> remedies = new ArrayList<>();

        void fail(String what, String remedy) {
            failures.add(what);
            remedies.add(remedy);
        }

        void warn(String what, String remedy) {
            warnings.add(what);
            remedies.add(remedy);
        }

        String remedy() {
            return String.join("; ", remedies.stream().distinct().toList());
        }
    }
}
