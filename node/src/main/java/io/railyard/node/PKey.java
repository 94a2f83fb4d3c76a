package io.railyard.node;

import java.util.List;
import java.util.Optional;

/**
 * One entry of a port's partition key table ({@code ports/<n>/pkeys/<index>}, text such as {@code 0xffff}): the high
 * bit is full membership, the low 15 bits the partition. Entries of 0 (no partition) are not kept.
 */
public record PKey(int index, int value) {
    /** The default partition, full member. */
    public static final int DEFAULT = 0xffff;

    /** The partition without the membership bit. */
    public int partition() {
        return value & 0x7fff;
    }

    public boolean fullMember() {
        return (value & 0x8000) != 0;
    }

    /** {@code 0x8001}, as opensm's partitions.conf and ibstat write keys. */
    public String hex() {
        return String.format("0x%04x", value);
    }

    /** A key as a resource names it ({@code 0x8001}, {@code 8001}); one line naming what is wrong otherwise. */
    public static int parse(String text) {
        String digits = text.strip().toLowerCase().startsWith("0x") ? text.strip().substring(2) : text.strip();
        try {
            int value = Integer.parseInt(digits, 16);
            if (value <= 0 || value > 0xffff || (value & 0x7fff) == 0) {
                throw new IllegalArgumentException("P_Key " + text + " is not a partition key: give 0x0001-0x7fff, or with the full-member bit 0x8001-0xffff");
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("P_Key '" + text + "' is not hexadecimal (such as 0x8001)");
        }
    }

    /** The first entry of the table in the given key's partition (either membership), as NCCL_IB_PKEY wants its index. */
    public static Optional<PKey> find(List<PKey> table, int key) {
        return table.stream().filter(entry -> entry.partition() == (key & 0x7fff)).findFirst();
    }
}
