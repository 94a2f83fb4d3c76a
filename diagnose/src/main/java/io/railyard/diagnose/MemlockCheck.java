package io.railyard.diagnose;

import io.railyard.node.Attr;
import io.railyard.node.MemlockLimit;
import java.util.List;

/** The locked-memory limit lets NCCL register its buffers with the NIC. */
final class MemlockCheck {
    static final String ID = "memlock";
    /** Below this NCCL fails to register buffers (ibv_reg_mr: Cannot allocate memory) on a multi-GPU node. */
    static final long MINIMUM_BYTES = 1L << 30;
    private static final String REMEDY = "raise it to unlimited: ulimit -l unlimited, LimitMEMLOCK=infinity for systemd "
            + "services, and for containers the runtime's default ulimit (containerd: LimitMEMLOCK=infinity on its service)";

    static CheckResult run(DoctorInput input) {
        Attr<MemlockLimit> limit = input.node().memlock();
        if (limit instanceof Attr.Unknown<MemlockLimit>(String reason)) {
            return new CheckResult(ID, CheckStatus.WARN, "memlock limit unknown: " + reason, List.of(), "check ulimit -l");
        }
        MemlockLimit memlock = limit.orElseThrow();
        String text = "soft " + MemlockLimit.describe(memlock.softBytes()) + ", hard " + MemlockLimit.describe(memlock.hardBytes());
        if (memlock.isUnlimited()) {
            return CheckResult.ok(ID, "memlock unlimited", List.of(text));
        }
        if (memlock.softBytes() >= MINIMUM_BYTES) {
            return new CheckResult(ID, CheckStatus.WARN, "memlock limited to " + MemlockLimit.describe(memlock.softBytes())
                    + ": enough for small jobs, but NCCL's registrations grow with GPUs and channels", List.of(text), REMEDY);
        }
        return new CheckResult(ID, CheckStatus.FAIL, "memlock limited to " + MemlockLimit.describe(memlock.softBytes())
                + ": NCCL will fail to register memory (ibv_reg_mr: Cannot allocate memory)", List.of(text), REMEDY);
    }
}
