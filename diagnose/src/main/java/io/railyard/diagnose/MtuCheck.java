package io.railyard.diagnose;

import io.railyard.node.Netdev;
import io.railyard.node.Port;
import java.util.ArrayList;
import java.util.List;

/** Each RoCE netdev's MTU leaves room for a 4096-byte RoCE MTU after the RoCE v2 headers (jumbo frames). */
final class MtuCheck {
    static final String ID = "mtu";
    /** GRH 40 + UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4: what the kernel (iboe_get_mtu) takes off the netdev MTU. */
    static final int ROCE_HEADERS = 96;
    private static final int[] IB_MTUS = {4096, 2048, 1024, 512, 256};

    /** The RoCE path MTU the kernel derives from a netdev MTU; 0 when even 256 does not fit. */
    static int activeRoceMtu(int netdevMtu) {
        for (int mtu : IB_MTUS) {
            if (netdevMtu - ROCE_HEADERS >= mtu) {
                return mtu;
            }
        }
        return 0;
    }

    static CheckResult run(DoctorInput input) {
        List<Port> roce = input.node().ports().stream().filter(Port::isRoce).toList();
        if (roce.isEmpty()) {
            return CheckResult.skipNoPorts(ID, input, "no RoCE ports: InfiniBand path MTU is set by the subnet manager");
        }
        List<String> details = new ArrayList<>();
        List<String> bad = new ArrayList<>();
        for (Port port : roce) {
            if (!port.netdev().isKnown()) {
                bad.add(port.id() + " has no known netdev (" + port.netdev().text() + ")");
                continue;
            }
            Netdev netdev = port.netdev().orElseThrow();
            if (!netdev.mtu().isKnown()) {
                bad.add(port.id() + " netdev " + netdev.name() + " MTU " + netdev.mtu().text());
                continue;
            }
            int mtu = netdev.mtu().orElse(0);
            int active = activeRoceMtu(mtu);
            details.add(port.id() + ": " + netdev.name() + " MTU " + mtu + " -> RoCE MTU " + active);
            if (active < 4096) {
                bad.add(port.id() + " (" + netdev.name() + " MTU " + mtu + ", RoCE MTU " + active + ")");
            }
        }
        if (bad.isEmpty()) {
            return CheckResult.ok(ID, "every RoCE port can use a 4096-byte RoCE MTU", details);
        }
        return new CheckResult(ID, CheckStatus.FAIL, "RoCE MTU below 4096 on " + String.join(", ", bad), details,
                "set the netdev MTU to at least " + (4096 + ROCE_HEADERS) + " (9000 is usual: ip link set <netdev> mtu 9000) "
                        + "and enable jumbo frames on every switch port in the path");
    }
}
