package io.railyard.diagnose;

import io.railyard.node.Attr;
import io.railyard.node.Hca;
import io.railyard.node.KernelModules;
import io.railyard.node.PciDevice;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The RDMA kernel modules: the verbs core, the connection manager, and each HCA's vendor driver. */
final class DriverCheck {
    static final String ID = "driver";
    private static final List<String> CORE = List.of("ib_core", "ib_uverbs", "rdma_cm", "rdma_ucm");
    /** PCI driver to the RDMA driver that must sit on top of it. */
    private static final Map<String, String> RDMA_DRIVER = Map.of(
            "mlx5_core", "mlx5_ib", "mlx4_core", "mlx4_ib", "bnxt_en", "bnxt_re", "ice", "irdma", "qede", "qedr");

    static CheckResult run(DoctorInput input) {
        KernelModules modules = input.node().modules();
        Set<String> required = new LinkedHashSet<>();
        for (Hca hca : input.node().hcas()) {
            String driver = hca.pci().flatMap(PciDevice::driver).orElse("");
            if (RDMA_DRIVER.containsKey(driver)) {
                required.add(driver);
                required.add(RDMA_DRIVER.get(driver));
            }
        }
        if (required.isEmpty()) {
            // No HCA tells us its vendor: accept any Mellanox/NVIDIA generation that is loaded, else ask for mlx5.
            required.addAll(modules.isLoaded("mlx4_core") ? List.of("mlx4_core", "mlx4_ib") : List.of("mlx5_core", "mlx5_ib"));
        }
        required.addAll(CORE);
        List<String> missing = required.stream().filter(name -> !modules.isLoaded(name)).toList();
        List<String> details = new ArrayList<>();
        if (modules.procModules() instanceof Attr.Unknown<?>(String reason)) {
            details.add("cannot list loaded modules: " + reason + "; looked in /sys/module only");
        }
        required.forEach(name -> details.add(name + ": " + (modules.isLoaded(name) ? "loaded" : "MISSING")));
        if (missing.isEmpty()) {
            return CheckResult.ok(ID, "RDMA kernel modules loaded: " + String.join(", ", required), details);
        }
        String remedy = "load them: modprobe -a " + String.join(" ", missing)
                + " (on NVIDIA networking hosts, install or start the DOCA/MLNX_OFED driver: systemctl start openibd)";
        return new CheckResult(ID, CheckStatus.FAIL, "missing RDMA kernel modules: " + String.join(", ", missing), details, remedy);
    }
}
