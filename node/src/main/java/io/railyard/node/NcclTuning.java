package io.railyard.node;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * NCCL's network variables that follow the fabric and the host, each only where Railyard knows better than NCCL's
 * default (NCCL's env.rst, 2.30): {@code NCCL_CROSS_NIC} from the fabric's shape, several queue pairs on a multi-tier
 * RoCE fabric, adaptive routing where the resource says the fabric has it, GPUDirect over C2C on Grace. Each choice
 * carries its reason, and all of them go to the container as one line in {@value #WHY}.
 */
public record NcclTuning(List<Choice> choices) {
    public static final String WHY = "RAILYARD_NCCL_TUNING";
    public static final String CROSS_NIC = "NCCL_CROSS_NIC";
    public static final String QPS = "NCCL_IB_QPS_PER_CONNECTION";
    public static final String SPLIT = "NCCL_IB_SPLIT_DATA_ON_QPS";
    public static final String ADAPTIVE_ROUTING = "NCCL_IB_ADAPTIVE_ROUTING";
    public static final String GDR_C2C = "NCCL_NET_GDR_C2C";
    /** Queue pairs per connection on a multi-tier RoCE fabric: vendors' scripts use 4 to 16. */
    static final int ROCE_QPS = 4;

    /** One variable, its value and why. */
    public record Choice(String variable, String value, String why) {}

    /**
     * What is known of the fabric: its shape as the node's labels give it ({@code rail-optimized}, {@code fat-tree},
     * {@code single-switch}, {@code mixed}; null when unknown), its tiers of switches (0 when unknown), and whether it
     * routes adaptively (null when not said).
     */
    public record Fabric(String shape, int tiers, Boolean adaptiveRouting) {
        public static final Fabric UNKNOWN = new Fabric(null, 0, null);
    }

    public NcclTuning {
        choices = List.copyOf(choices);
    }

    /** The choices for these ports on this fabric and host. */
    public static NcclTuning of(List<Port> ports, Fabric fabric, boolean graceC2c) {
        List<Choice> choices = new ArrayList<>();
        if (ports.isEmpty()) {
            return new NcclTuning(choices);
        }
        if (ports.size() > 1 && "rail-optimized".equals(fabric.shape())) {
            choices.add(new Choice(CROSS_NIC, "0", "rail-optimized fabric: each ring and tree stays on one rail, as the rails meet only"
                    + " above the leaves (NCCL's default 2 may cross them)"));
        } else if (ports.size() > 1 && "fat-tree".equals(fabric.shape())) {
            choices.add(new Choice(CROSS_NIC, "1", "fat tree: every NIC of a node reaches the same leaf, so crossing NICs costs nothing"));
        }
        boolean roce = ports.stream().allMatch(Port::isRoce);
        boolean infiniBand = ports.stream().allMatch(Port::isInfiniBand);
        if (roce && fabric.tiers() >= 2) {
            choices.add(new Choice(QPS, String.valueOf(ROCE_QPS), fabric.tiers() + "-tier RoCE fabric: ECMP hashes queue pairs, not packets,"
                    + " and one per connection (NCCL's default) leaves links idle"));
            choices.add(new Choice(SPLIT, "0", "whole messages round-robin over the queue pairs: splitting each adds latency with several"
                    + " (the default since 2.20, 1 in 2.18 and 2.19)"));
        }
        if (Boolean.TRUE.equals(fabric.adaptiveRouting()) && roce) {
            choices.add(new Choice(ADAPTIVE_ROUTING, "1", "the resource says the fabric routes adaptively; NCCL turns it on for InfiniBand only"));
        } else if (Boolean.FALSE.equals(fabric.adaptiveRouting()) && infiniBand) {
            choices.add(new Choice(ADAPTIVE_ROUTING, "0", "the resource says the subnet manager does not route adaptively; NCCL turns it on"
                    + " for InfiniBand"));
        }
        if (graceC2c) {
            choices.add(new Choice(GDR_C2C, "1", "Grace host: the GPUs reach the NICs through the CPU over NVLink-C2C, which NCCL 2.26"
                    + " uses for GPUDirect RDMA only with this (the default from 2.27)"));
        }
        return new NcclTuning(choices);
    }

    /** The variables, and {@value #WHY} with every choice's reason; none when nothing was chosen. */
    public Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        if (choices.isEmpty()) {
            return env;
        }
        choices.forEach(choice -> env.put(choice.variable(), choice.value()));
        env.put(WHY, choices.stream().map(c -> c.variable() + "=" + c.value() + " (" + c.why() + ")").collect(Collectors.joining("; ")));
        return env;
    }

    /** The value chosen for a variable; null when none. */
    public String value(String variable) {
        return choices.stream().filter(c -> c.variable().equals(variable)).map(Choice::value).findFirst().orElse(null);
    }
}
