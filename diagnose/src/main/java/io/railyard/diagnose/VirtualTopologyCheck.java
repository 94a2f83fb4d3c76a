package io.railyard.diagnose;

import io.railyard.node.Gpu;
import io.railyard.node.NcclTopology;
import io.railyard.node.NodeInventory;
import io.railyard.node.Sysfs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether NCCL can see where the GPUs and NICs sit. In a VM the passthrough devices hang from an emulated, flat PCI
 * tree, often without a NUMA node, and NCCL then treats every GPU–NIC pair alike; an NCCL_TOPO_FILE puts them back
 * where the host has them. A file that is set is checked against the node.
 */
final class VirtualTopologyCheck {
    static final String ID = "virtual-topology";

    static CheckResult run(DoctorInput input) {
        NodeInventory node = input.node();
        if (node.gpus().isEmpty()) {
            return CheckResult.skip(ID, "no NVIDIA GPUs: the topology that matters is between GPUs and NICs");
        }
        Sysfs sysfs = new Sysfs(Path.of(node.root()));
        String file = input.environment().get("NCCL_TOPO_FILE");
        if (file != null) {
            return checkFile(node, sysfs, file);
        }
        List<String> details = new ArrayList<>();
        boolean flat = NcclTopology.flat(node);
        boolean noNuma = node.gpus().stream().allMatch(gpu -> gpu.pci().numaNodeOrNone() < 0);
        boolean hypervisor = (" " + NcclTopology.cpuInfo(sysfs).getOrDefault("flags", "") + " ").contains(" hypervisor ");
        details.add("PCI tree: " + (flat ? "flat (GPUs and NICs straight under a host bridge)" : "bridges and switches between root and devices"));
        details.add("GPUs' NUMA node: " + (noNuma ? "none (-1)" : node.gpus().stream().map(Gpu::pci).map(p -> String.valueOf(p.numaNodeOrNone()))
                .distinct().toList()));
        details.add("/proc/cpuinfo: " + (hypervisor ? "a hypervisor" : "no hypervisor flag"));
        if (flat || noNuma && hypervisor) {
            return new CheckResult(ID, CheckStatus.WARN, "the GPUs and NICs sit on a " + (flat ? "flat virtual PCI tree" : "VM's PCI tree without NUMA nodes")
                    + " and no NCCL_TOPO_FILE is set: NCCL cannot see which NIC is near which GPU", details,
                    "set NCCL_TOPO_FILE to the topology file your cloud publishes for this VM size (Azure's HPC images keep them under "
                            + "/opt/microsoft), or write one with the host's layout; railyard topo prints what this node's sysfs shows, to start from");
        }
        return CheckResult.ok(ID, "the PCI tree shows where the GPUs and NICs sit: NCCL reads it itself", details);
    }

    private static CheckResult checkFile(NodeInventory node, Sysfs sysfs, String file) {
        String xml;
        try {
            xml = Files.readString(Path.of(file));
        } catch (IOException e) {
            return new CheckResult(ID, CheckStatus.FAIL, "NCCL_TOPO_FILE=" + file + " cannot be read (" + e.getClass().getSimpleName() + ")",
                    List.of(), "NCCL fails to initialise without it: mount the file into the container or unset NCCL_TOPO_FILE");
        }
        List<String> problems = NcclTopology.check(xml, node, sysfs);
        if (problems.isEmpty()) {
            return CheckResult.ok(ID, "NCCL_TOPO_FILE=" + file + " matches this node's " + node.gpus().size() + " GPUs and "
                    + node.hcas().size() + " RDMA NICs", List.of());
        }
        boolean wrong = problems.stream().anyMatch(p -> !p.endsWith("NCCL places it by itself"));
        return new CheckResult(ID, wrong ? CheckStatus.FAIL : CheckStatus.WARN, "NCCL_TOPO_FILE=" + file + " does not match this node: "
                + problems.getFirst() + (problems.size() > 1 ? " (and " + (problems.size() - 1) + " more)" : ""), problems,
                "use the file made for this machine type, or fix the bus IDs and names it gives");
    }
}
