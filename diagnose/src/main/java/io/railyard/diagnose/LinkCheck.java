package io.railyard.diagnose;

import io.railyard.node.Attr;
import io.railyard.node.LinkState;
import io.railyard.node.Port;
import java.util.ArrayList;
import java.util.List;

/** Every RDMA port is ACTIVE and LinkUp; each bad port is named with its state and physical state. */
final class LinkCheck {
    static final String ID = "link";

    static CheckResult run(DoctorInput input) {
        List<Port> ports = input.node().ports();
        if (ports.isEmpty()) {
            return CheckResult.skipNoPorts(ID, input, "no RDMA ports");
        }
        List<String> details = new ArrayList<>();
        List<String> bad = new ArrayList<>();
        Remedies remedies = new Remedies();
        for (Port port : ports) {
            String rate = port.rate().map(Object::toString).orElse("rate unknown");
            details.add(port.id() + ": " + port.stateText() + ", " + rate + ", " + port.linkLayer().map(Object::toString).orElse("link layer unknown"));
            if (port.isActive() && port.isLinkUp()) {
                continue;
            }
            bad.add(describe(port));
            remedies.add(port.id(), remedy(port));
        }
        if (bad.isEmpty()) {
            return CheckResult.ok(ID, "all " + ports.size() + " ports ACTIVE/LinkUp", details);
        }
        return new CheckResult(ID, CheckStatus.FAIL, bad.size() + " of " + ports.size() + " ports not active: "
                + String.join("; ", bad), details, remedies.toString());
    }

    private static String describe(Port port) {
        if (port.state() instanceof Attr.Unknown<LinkState>(String reason)) {
            return "port " + port.id() + " state is unknown: " + reason;
        }
        return "port " + port.id() + " is " + port.state().orElseThrow() + " (phys_state " + port.physicalState().map(LinkState::name).orElse("unknown") + ")";
    }

    private static String remedy(Port port) {
        String phys = port.physicalState().map(LinkState::name).orElse("");
        return switch (phys) {
            case "Polling" -> "no link partner: check the cable, the optic and the switch port";
            case "Disabled" -> "the port is disabled: enable it (ip link set <netdev> up, or on the switch)";
            case "LinkUp" -> port.isInfiniBand()
                    ? "the link is up but not active: a subnet manager must configure it"
                    : "the link is up but not active: bring its netdev up (ip link set <netdev> up)";
            case "LinkErrorRecovery" -> "the link keeps retraining: check the cable and the symbol_error counter";
            default -> "check the cable, the switch port and the driver (dmesg | grep mlx5)";
        };
    }
}
