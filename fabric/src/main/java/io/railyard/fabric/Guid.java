package io.railyard.fabric;

/** An InfiniBand GUID, compared as the 64-bit number it is: the tools drop leading zeros in some places and not in others. */
public record Guid(long value) implements Comparable<Guid> {
    /** Parses {@code 0x043f720300e1a000}, {@code 43f720300e1a000} or the hex part of an ibnetdiscover id. */
    public static Guid parse(String text) {
        Guid guid = ofHex(text, 0, text.length());
        if (guid == null) {
            throw new IllegalArgumentException("not a GUID: '" + text + "'");
        }
        return guid;
    }

    /** The GUID that {@code text[from, to)} spells in 1 to 16 hex digits, after an optional {@code 0x}; null if it spells none. */
    public static Guid ofHex(String text, int from, int to) {
        int start = to - from > 2 && text.charAt(from) == '0' && (text.charAt(from + 1) | 0x20) == 'x' ? from + 2 : from;
        if (to <= start || to - start > 16) {
            return null;
        }
        long value = 0;
        for (int i = start; i < to; i++) {
            char c = text.charAt(i);
            int digit = c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
            if (digit < 0) {
                return null;
            }
            value = value << 4 | digit;
        }
        return new Guid(value);
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
