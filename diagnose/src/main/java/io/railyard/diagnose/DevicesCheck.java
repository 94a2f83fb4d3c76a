package io.railyard.diagnose;

import io.railyard.node.CharDevice;
import io.railyard.node.Hca;
import io.railyard.node.NodeInventory;
import io.railyard.node.PciDevice;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** RDMA devices exist, each reachable from user space through its uverbs node, and the rdma_cm node exists. */
final class DevicesCheck {
    static final String ID = "devices";

    static CheckResult run(DoctorInput input) {
        NodeInventory node = input.node();
        if (node.hcas().isEmpty()) {
            return new CheckResult(ID, CheckStatus.FAIL, "no RDMA devices under /sys/class/infiniband", List.of(),
                    "load the RDMA driver (modprobe mlx5_ib) and check the NIC is in RDMA mode; ibv_devices should list it");
        }
        if (!node.devPresent()) {
            return new CheckResult(ID, CheckStatus.FAIL, "dev/ is missing from the root " + node.root() + ": the device nodes cannot be checked",
                    List.of(), "mount the host's /dev under the root too, beside sys and proc (-v /dev:" + Path.of(node.root()).resolve("dev") + ":ro)");
        }
        List<String> details = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (Hca hca : node.hcas()) {
            details.add(describe(hca));
            Optional<CharDevice> uverbs = hca.uverbs();
            if (uverbs.isEmpty()) {
                problems.add(hca.name() + " has no uverbs device (is ib_uverbs loaded?)");
            } else if (!uverbs.get().present()) {
                problems.add(uverbs.get().hostPath() + " (" + hca.name() + ") is missing");
            }
        }
        details.add("/dev/infiniband/rdma_cm: " + (node.rdmaCmPresent() ? "present" : "MISSING"));
        long umads = node.hcas().stream().flatMap(hca -> hca.charDevices().stream())
                .filter(device -> device.kind() == CharDevice.Kind.UMAD && device.present()).count();
        details.add("umad (raw management datagrams to the fabric): " + (umads == 0 ? "none present" : umads + " present")
                + "; NCCL, perftest and torch need only uverbs and rdma_cm, umad is for infiniband-diags and OpenSM: Railyard's "
                + "device plugin mounts it only for a resource with managementDatagrams: true, never into a training container");
        if (!node.rdmaCmPresent()) {
            problems.add("/dev/infiniband/rdma_cm is missing (is rdma_ucm loaded?)");
        }
        if (problems.isEmpty()) {
            return CheckResult.ok(ID, node.hcas().size() + " RDMA devices, each with its uverbs node; rdma_cm present", details);
        }
        return new CheckResult(ID, CheckStatus.FAIL, String.join("; ", problems), details,
                "on the host: modprobe ib_uverbs rdma_ucm; in a pod: request the RDMA resource so the device plugin mounts "
                        + "/dev/infiniband/*, or mount them from the host");
    }

    private static String describe(Hca hca) {
        String devices = hca.charDevices().stream()
                .map(d -> d.name() + (d.present() ? "" : " (no /dev node)"))
                .collect(Collectors.joining(", "));
        String pci = hca.pci().map(p -> "PCI " + p.address() + ", NUMA " + p.numaNodeOrNone()).orElse("PCI unknown");
        String driver = hca.pci().flatMap(PciDevice::driver).orElse("driver unknown");
        return hca.name() + ": " + hca.hcaType().orElse("type unknown") + ", firmware " + hca.firmware().orElse("unknown")
                + ", " + pci + ", " + driver + "; " + (devices.isEmpty() ? "no character devices" : devices);
    }
}
