package io.railyard.agent.health;

import java.util.Map;

/**
 * One port as read at one moment: whether it can carry RDMA, its state as ibstat shows it, and, on the polls that read
 * counters, {@code link_downed} and the link-integrity counters by sysfs name (empty on the others).
 *
 * @param port as NCCL names it: {@code mlx5_3:1}
 * @param linkDowned null when not read on this poll
 */
public record PortSample(String port, boolean up, String state, Long linkDowned, Map<String, Long> errors) {
    public PortSample {
        errors = Map.copyOf(errors);
    }

    /** {@code mlx5_3 port 1}, as the messages say it. */
    String spoken() {
        int colon = port.lastIndexOf(':');
        return colon < 0 ? port : port.substring(0, colon) + " port " + port.substring(colon + 1);
    }
}
