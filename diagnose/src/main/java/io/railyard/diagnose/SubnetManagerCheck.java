package io.railyard.diagnose;

import io.railyard.node.Port;
import java.util.ArrayList;
import java.util.List;

/** InfiniBand ports were brought up by a subnet manager: ACTIVE, a valid LID, an SM LID. */
final class SubnetManagerCheck {
    static final String ID = "subnet-manager";
    private static final int MAX_UNICAST_LID = 0xbfff;

    static CheckResult run(DoctorInput input) {
        List<Port> ib = input.node().ports().stream().filter(Port::isInfiniBand).toList();
        if (ib.isEmpty()) {
            return CheckResult.skipNoPorts(ID, input, "no InfiniBand ports: RoCE runs over Ethernet and needs no subnet manager");
        }
        List<String> details = new ArrayList<>();
        List<String> bad = new ArrayList<>();
        for (Port port : ib) {
            int lid = port.lid().orElse(0);
            int smLid = port.smLid().orElse(0);
            String line = String.format("%s: %s, LID 0x%x, SM LID 0x%x", port.id(), port.stateText(), lid, smLid);
            details.add(line);
            boolean configured = port.isActive() && lid >= 1 && lid <= MAX_UNICAST_LID && smLid != 0;
            if (!configured) {
                bad.add(port.id());
            }
        }
        if (bad.isEmpty()) {
            return CheckResult.ok(ID, "every InfiniBand port was configured by a subnet manager (SM LID "
                    + String.format("0x%x", ib.getFirst().smLid().orElse(0)) + ")", details);
        }
        return new CheckResult(ID, CheckStatus.FAIL,
                "no subnet manager has configured " + String.join(", ", bad) + " (not ACTIVE, or no valid LID or SM LID)",
                details,
                "run a subnet manager on the fabric (opensm on one host, or the switch's or UFM's SM); sminfo shows it, "
                        + "and a port that is LinkUp but INIT is waiting for it");
    }
}
