package io.railyard.fabric;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What the cables make of the fabric, as NCCL's network choices need it: {@code rail-optimized} (each host's HCAs on
 * leaves of their own, one leaf per rail, so rails meet only above the leaves), {@code fat-tree} (a host's HCAs share
 * one leaf), {@code single-switch}, or {@code mixed}; the tiers of switches; and the evidence, in numbers of hosts.
 */
public record FabricShape(Kind kind, int tiers, String evidence) {
    public static final String SHAPE_LABEL = "railyard.io/fabric.shape";
    public static final String TIERS_LABEL = "railyard.io/fabric.tiers";

    public enum Kind {
        RAIL_OPTIMIZED, FAT_TREE, SINGLE_SWITCH, MIXED;

        /** As labels and the report write it: {@code rail-optimized}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /** The kind a label or a shape file names; one line naming the four when it names none. */
        public static Kind of(String label) {
            for (Kind kind : values()) {
                if (kind.label().equals(label)) {
                    return kind;
                }
            }
            throw new IllegalArgumentException("'" + label + "' is not a fabric shape: use rail-optimized, fat-tree, single-switch or mixed");
        }
    }

    public static FabricShape of(Topology topology) {
        int tiers = topology.switches().stream().mapToInt(Topology.Switch::tier).max().orElse(0);
        if (topology.switches().size() == 1) {
            return new FabricShape(Kind.SINGLE_SWITCH, 1, "one switch: " + topology.switches().getFirst().name());
        }
        int several = 0;
        int railed = 0;
        int oneLeaf = 0;
        for (Topology.Host host : topology.hosts()) {
            List<String> leaves = host.hcas().stream().map(Topology.Hca::leaf).filter(leaf -> leaf != null).toList();
            if (leaves.size() < 2) {
                continue;
            }
            several++;
            Set<String> distinct = new HashSet<>(leaves);
            if (distinct.size() == leaves.size()) {
                railed++;
            } else if (distinct.size() == 1) {
                oneLeaf++;
            }
        }
        String ofHosts = several + " hosts with several HCAs";
        if (several == 0) {
            return new FabricShape(Kind.FAT_TREE, tiers, "no host has more than one HCA on the fabric: nothing to keep on a rail");
        }
        if (railed == several) {
            return new FabricShape(Kind.RAIL_OPTIMIZED, tiers, "all " + ofHosts + " have each HCA on a leaf of its own");
        }
        if (oneLeaf == several) {
            return new FabricShape(Kind.FAT_TREE, tiers, "all " + ofHosts + " have their HCAs on one leaf");
        }
        return new FabricShape(Kind.MIXED, tiers, "of " + ofHosts + ": " + railed + " with each HCA on a leaf of its own, " + oneLeaf
                + " with all on one leaf, " + (several - railed - oneLeaf) + " between");
    }
}
