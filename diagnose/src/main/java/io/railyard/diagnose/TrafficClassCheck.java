package io.railyard.diagnose;

import io.railyard.node.Port;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The RoCE ports' default traffic class (MLNX_OFED's {@code tc/<port>/traffic_class}): the switches put traffic on a
 * lossless priority by its DSCP, and NCCL's queue pairs use class 0 unless NCCL_IB_TC says otherwise, so ports that
 * disagree, a port without one beside ports with one, or an NCCL_IB_TC other than the host's ride a lossy queue.
 */
final class TrafficClassCheck {
    static final String ID = "traffic-class";

    static CheckResult run(DoctorInput input) {
        List<Port> roce = input.node().ports().stream().filter(Port::isRoce).toList();
        if (roce.isEmpty()) {
            return CheckResult.skipNoPorts(ID, input, "no RoCE ports: the traffic class is a RoCE setting");
        }
        Map<String, Integer> classes = new LinkedHashMap<>();
        List<String> without = new ArrayList<>();
        List<String> details = new ArrayList<>();
        for (Port port : roce) {
            if (port.trafficClass().isKnown()) {
                int tc = port.trafficClass().orElseThrow();
                classes.put(port.id(), tc);
                details.add(port.id() + ": traffic class " + tc + " (DSCP " + (tc >> 2) + ")");
            } else {
                without.add(port.id());
                details.add(port.id() + ": " + port.trafficClass().text());
            }
        }
        if (classes.isEmpty()) {
            return new CheckResult(ID, CheckStatus.OK, "no RoCE port has a default traffic class set: NCCL uses NCCL_IB_TC, else 0",
                    details, "");
        }
        List<Integer> distinct = classes.values().stream().distinct().toList();
        if (!without.isEmpty()) {
            return warn("traffic class " + distinct.stream().map(String::valueOf).collect(Collectors.joining("/")) + " on "
                    + String.join(", ", classes.keySet()) + " but none on " + String.join(", ", without), details);
        }
        if (distinct.size() > 1) {
            return warn("the RoCE ports disagree on their traffic class: " + classes.entrySet().stream()
                    .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", ")), details);
        }
        int host = distinct.getFirst();
        String set = input.environment().get("NCCL_IB_TC");
        if (set != null && !set.strip().equals(String.valueOf(host))) {
            return new CheckResult(ID, CheckStatus.WARN, "NCCL_IB_TC=" + set + " but the host's RoCE ports use traffic class " + host
                    + ": NCCL's queue pairs ride another priority than the host's RoCE traffic", details,
                    "unset NCCL_IB_TC (Railyard's device plugin sets it from the host) or set NCCL_IB_TC=" + host);
        }
        return CheckResult.ok(ID, "every RoCE port uses traffic class " + host + " (DSCP " + (host >> 2) + "): NCCL_IB_TC=" + host
                + (set == null ? " is what the device plugin sets" : " is set"), details);
    }

    private static CheckResult warn(String summary, List<String> details) {
        return new CheckResult(ID, CheckStatus.WARN, summary, details,
                "set one class on every RoCE port (echo 106 > /sys/class/infiniband/<hca>/tc/<port>/traffic_class, or the NIC's "
                        + "QoS tool) to the DSCP the switches treat as lossless; until then the device plugin sets no NCCL_IB_TC for mixed ports");
    }
}
