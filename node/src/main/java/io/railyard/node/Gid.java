package io.railyard.node;

import java.util.Locale;

/** One non-zero entry of a port's GID table. */
public record Gid(int index, String address, Attr<GidType> type, Attr<String> netdev) {
    private static final String IPV4_MAPPED_PREFIX = "0000:0000:0000:0000:0000:ffff:";

    /** True when the address is an IPv4-mapped IPv6 address ({@code ::ffff:a.b.c.d}). */
    public boolean isIpv4() {
        return isIpv4(address);
    }

    /** True when a GID table address is an IPv4-mapped IPv6 address. */
    public static boolean isIpv4(String address) {
        return address.toLowerCase(Locale.ROOT).startsWith(IPV4_MAPPED_PREFIX);
    }

    /** True for {@code fe80::/10} addresses, which RoCE cannot route between subnets. */
    public boolean isLinkLocal() {
        return address.toLowerCase(Locale.ROOT).startsWith("fe80:");
    }

    public boolean isRoceV2() {
        return type.is(t -> t == GidType.ROCE_V2);
    }

    /** The address as people write it: dotted IPv4 for IPv4-mapped entries, else the sysfs form. */
    public String displayAddress() {
        if (!isIpv4()) {
            return address;
        }
        String hex = address.substring(IPV4_MAPPED_PREFIX.length()).replace(":", "");
        if (hex.length() != 8) {
            return address;
        }
        int value = (int) Long.parseLong(hex, 16);
        return (value >>> 24) + "." + ((value >>> 16) & 0xff) + "." + ((value >>> 8) & 0xff) + "." + (value & 0xff);
    }
}
