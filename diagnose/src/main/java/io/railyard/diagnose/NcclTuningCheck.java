package io.railyard.diagnose;

import io.railyard.node.NcclTuning;
import io.railyard.node.Port;
import java.util.ArrayList;
import java.util.List;

/**
 * NCCL's network variables against the fabric (the node's {@code railyard.io/fabric.*} labels) and the host: a
 * {@code NCCL_CROSS_NIC=1} that sends rings across the rails of a rail-optimized fabric, one queue pair on a multi-tier
 * RoCE fabric, GPUDirect over C2C off on Grace, each message split over many queue pairs. The figures are NCCL's own
 * (env.rst); the device plugin sets what it lists.
 */
final class NcclTuningCheck {
    static final String ID = "nccl-tuning";
    private static final String SOURCE = " (NCCL's environment variable reference, env.rst)";

    static CheckResult run(DoctorInput input) {
        NcclTuning.Fabric fabric = input.cluster() instanceof ClusterAccess.Observed(ClusterView view) ? view.fabric() : NcclTuning.Fabric.UNKNOWN;
        List<Port> ports = input.node().ports().stream().filter(p -> p.isInfiniBand() || p.isRoce()).toList();
        boolean grace = input.node().isGraceC2c();
        if (fabric.shape() == null && fabric.tiers() == 0 && !grace) {
            return CheckResult.skip(ID, "the fabric's shape is not known here (no railyard.io/fabric.shape label on the node: railyard fabric"
                    + " --labels --apply, or --shape-file for RoCE) and this is no Grace host");
        }
        NcclTuning wanted = NcclTuning.of(ports, fabric, grace);
        List<String> details = new ArrayList<>();
        details.add("fabric: " + (fabric.shape() == null ? "shape unknown" : fabric.shape()) + (fabric.tiers() > 0 ? ", " + fabric.tiers()
                + " tiers" : "") + (grace ? "; Grace host: " + input.node().graceC2c() : ""));
        wanted.choices().forEach(c -> details.add("the device plugin sets " + c.variable() + "=" + c.value() + ": " + c.why()));
        List<String> problems = new ArrayList<>();
        String crossNic = input.environment().get(NcclTuning.CROSS_NIC);
        if ("1".equals(crossNic) && "rail-optimized".equals(fabric.shape()) && ports.size() > 1) {
            problems.add("NCCL_CROSS_NIC=1 on a rail-optimized fabric: rings and trees cross rails through the spines; 0 keeps each on"
                    + " one rail" + SOURCE);
        }
        int qps = number(input.environment().get(NcclTuning.QPS));
        if (qps == 1 && wanted.value(NcclTuning.QPS) != null) {
            problems.add("NCCL_IB_QPS_PER_CONNECTION=1 on a " + fabric.tiers() + "-tier RoCE fabric: ECMP hashes each connection's one queue"
                    + " pair onto one path; " + wanted.value(NcclTuning.QPS) + " give it entropy (vendors use 4 to 16)" + SOURCE);
        }
        if (qps > 1 && "1".equals(input.environment().get(NcclTuning.SPLIT))) {
            problems.add("NCCL_IB_SPLIT_DATA_ON_QPS=1 with " + qps + " queue pairs: each message is split over all of them, which adds"
                    + " latency; 0 (the default since 2.20) sends whole messages round-robin" + SOURCE);
        }
        String c2c = input.environment().get(NcclTuning.GDR_C2C);
        String version = input.environment().getOrDefault("NCCL_VERSION", "");
        if (grace && ("0".equals(c2c) || c2c == null && version.startsWith("2.26"))) {
            problems.add("GPUDirect RDMA over C2C is off on this Grace host (" + (c2c == null ? "NCCL " + version + " without NCCL_NET_GDR_C2C"
                    : "NCCL_NET_GDR_C2C=0") + "): NCCL stages through host memory; NCCL_NET_GDR_C2C=1 (the default from 2.27)" + SOURCE);
        }
        if (!problems.isEmpty()) {
            return new CheckResult(ID, CheckStatus.WARN, String.join("; ", problems), details,
                    "leave these variables to the device plugin (RAILYARD_NCCL_TUNING in the container says what it set and why), or set them"
                            + " as the warning says");
        }
        return CheckResult.ok(ID, "NCCL's network variables suit the fabric" + (grace ? " and the Grace host" : "") + " ("
                + (wanted.choices().isEmpty() ? "NCCL's defaults" : wanted.choices().size() + " set by the device plugin") + ")", details);
    }

    private static int number(String value) {
        return value != null && value.strip().matches("\\d{1,3}") ? Integer.parseInt(value.strip()) : -1;
    }
}
