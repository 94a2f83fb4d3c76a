package io.railyard.agent;

import io.railyard.fabric.FabricShape;
import io.railyard.node.NcclTuning;
import io.railyard.node.NodeInventory;
import io.railyard.node.Port;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a resource's containers get from this node beyond their ports, alike from the device plugin and the DRA driver:
 * the NCCL topology file, and NCCL's tuning by the fabric's shape and tiers (the node's {@code railyard.io/fabric.*}
 * labels, which {@code railyard fabric --labels} writes) and by the host (Grace C2C).
 *
 * @param topology the host path of the resource's NCCL topology file, if it has one on this node
 */
public record ContainerExtras(Optional<Path> topology, String fabricShape, int fabricTiers, boolean graceC2c) {
    private static final Logger LOG = LoggerFactory.getLogger(ContainerExtras.class);
    public static final ContainerExtras NONE = new ContainerExtras(Optional.empty(), null, 0, false);

    /** The extras of one resource on this node, from its labels (empty without API access) and its model. */
    public static ContainerExtras of(Optional<Path> topology, Map<String, String> nodeLabels, NodeInventory node) {
        return new ContainerExtras(topology, null, 0, node.isGraceC2c()).withLabels(nodeLabels);
    }

    /** The same extras with the fabric as these node labels now give it. */
    public ContainerExtras withLabels(Map<String, String> nodeLabels) {
        NcclTuning.Fabric fabric = fabric(nodeLabels);
        return new ContainerExtras(topology, fabric.shape(), fabric.tiers(), graceC2c);
    }

    /** The fabric's shape and tiers as a node's {@code railyard.io/fabric.*} labels give them; adaptive routing not said. */
    public static NcclTuning.Fabric fabric(Map<String, String> nodeLabels) {
        String shape = nodeLabels.get(FabricShape.SHAPE_LABEL);
        if (shape != null) {
            try {
                FabricShape.Kind.of(shape);
            } catch (IllegalArgumentException e) {
                LOG.warn("node label {}: {}; NCCL_CROSS_NIC is left to NCCL", FabricShape.SHAPE_LABEL, e.getMessage());
                shape = null;
            }
        }
        int tiers = 0;
        String tierLabel = nodeLabels.getOrDefault(FabricShape.TIERS_LABEL, "");
        if (tierLabel.matches("[1-9]")) {
            tiers = Integer.parseInt(tierLabel);
        }
        return new NcclTuning.Fabric(shape, tiers, null);
    }

    /** The node labels the tuning goes by. */
    public static boolean tunedBy(String label) {
        return label.equals(FabricShape.SHAPE_LABEL) || label.equals(FabricShape.TIERS_LABEL);
    }

    /** NCCL's tuning for these ports under this resource's settings; none when the resource turns tuning off. */
    NcclTuning tuning(List<Port> ports, ResourceConfig resource) {
        if (!resource.environment().tuning()) {
            return new NcclTuning(List.of());
        }
        return NcclTuning.of(ports, new NcclTuning.Fabric(fabricShape, fabricTiers, resource.adaptiveRouting()), graceC2c);
    }
}
