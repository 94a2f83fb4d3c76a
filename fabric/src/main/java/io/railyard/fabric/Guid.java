package io.railyard.fabric;

/** An InfiniBand GUID, compared as the 64-bit number it is: the tools drop leading zeros in some places and not in others. */
public record Guid(long value) implements Comparable<Guid> {
    /** Parses {@code 0x043f720300e1a000}, {@code 43f720300e1a000} or the hex part of an ibnetdiscover id. */
    public static Guid parse(String text) {
        String hex = text.startsWith("0x") || text.startsWith("0X") ? text.substring(2) : text;
        if (hex.isEmpty() || hex.length() > 16) {
            throw new IllegalArgumentException("not a GUID: '" + text + "'");
        }
        return new Guid(Long.parseUnsignedLong(hex, 16));
    }

    // Written out: the generated record methods go through method handles, slow before the JIT has run, and a large
    // fabric hashes GUIDs a few hundred thousand times in a command that runs once.
    @Override
    public boolean equals(Object other) {
        return other instanceof Guid guid && guid.value == value;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(value);
    }

    @Override
    public int compareTo(Guid other) {
        return Long.compareUnsigned(value, other.value);
    }

    /** The 16 hex digits without {@code 0x}, as in ibnetdiscover's node ids. */
    public String hex() {
        String hex = Long.toHexString(value);
        return "0".repeat(16 - hex.length()) + hex;
    }

    @Override
    public String toString() {
        return "0x" + hex();
    }
}
