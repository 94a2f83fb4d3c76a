package io.railyard.node;

import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalInt;

/**
 * One port of an HCA, as read from {@code /sys/class/infiniband/<hca>/ports/<n>}.
 *
 * @param dir the port's directory, for counters read on demand
 * @param trafficClass the RoCE traffic class (ToS byte) the driver gives new queue pairs ({@code
 *     /sys/class/infiniband/<hca>/tc/<port>/traffic_class}, MLNX_OFED's mlx5): unknown where it is not exposed or not set
 * @param pkeys the port's partition key table, entries in use only, by index
 */
public record Port(
        String hca,
        int number,
        Path dir,
        Attr<LinkState> state,
        Attr<LinkState> physicalState,
        Attr<Rate> rate,
        Attr<LinkLayer> linkLayer,
        Attr<Integer> lid,
        Attr<Integer> smLid,
        GidTable gids,
        Attr<Netdev> netdev,
        Attr<Integer> trafficClass,
        List<PKey> pkeys) {

    public Port {
        pkeys = List.copyOf(pkeys);
    }

    /** By HCA name with its device number read as a number ({@code mlx5_2} before {@code mlx5_10}), then port. */
    public static final Comparator<Port> BY_DEVICE = Comparator.comparing(Port::hca, Port::compareHcaNames).thenComparingInt(Port::number);

    /** HCA names in device order: the same prefix compares by its trailing number, else as text. */
    public static int compareHcaNames(String a, String b) {
        int numberA = digitsStart(a);
        int numberB = digitsStart(b);
        String prefixA = a.substring(0, numberA);
        String prefixB = b.substring(0, numberB);
        if (prefixA.equals(prefixB) && numberA < a.length() && numberB < b.length()
                && a.length() - numberA < 10 && b.length() - numberB < 10) {
            return Integer.compare(Integer.parseInt(a.substring(numberA)), Integer.parseInt(b.substring(numberB)));
        }
        return a.compareTo(b);
    }

    private static int digitsStart(String name) {
        int start = name.length();
        while (start > 0 && Character.isDigit(name.charAt(start - 1))) {
            start--;
        }
        return start;
    }

    /** The port as NCCL and ibstat name it: {@code mlx5_1:1}. */
    public String id() {
        return hca + ":" + number;
    }

    public boolean isActive() {
        return state.is(s -> s.id() == LinkState.ACTIVE);
    }

    public boolean isLinkUp() {
        return physicalState.is(s -> s.id() == LinkState.LINK_UP);
    }

    /** True for RoCE: the link layer is Ethernet. */
    public boolean isRoce() {
        return linkLayer.is(layer -> layer == LinkLayer.ETHERNET);
    }

    public boolean isInfiniBand() {
        return linkLayer.is(layer -> layer == LinkLayer.INFINIBAND);
    }

    /** The GID index NCCL should use: a RoCE v2 IPv4 entry; none on InfiniBand or when no such entry exists. */
    public OptionalInt ncclGidIndex() {
        return isRoce() ? gids.roceV2Ipv4Index() : OptionalInt.empty();
    }

    /**
     * A traffic_class file's value: {@code Global tclass=106} (MLNX_OFED) or {@code 106}; {@code tclass=-1}, -1 or
     * nothing means none is set.
     */
    public static int parseTrafficClass(String text) {
        java.util.regex.Matcher number = java.util.regex.Pattern.compile("-?\\d+").matcher(text);
        Integer last = null;
        while (number.find()) {
            last = Integer.parseInt(number.group());
        }
        if (last == null || last < 0) {
            throw new IllegalArgumentException("no traffic class set");
        }
        if (last > 255) {
            throw new IllegalArgumentException("a traffic class is 0-255");
        }
        return last;
    }

    /** The InfiniBand PMA counters ({@code counters/}), read now. */
    public Counters counters(Sysfs sysfs) {
        return Counters.read(sysfs, dir.resolve("counters"));
    }

    /** The driver's hardware counters ({@code hw_counters/}), read now. */
    public Counters hwCounters(Sysfs sysfs) {
        return Counters.read(sysfs, dir.resolve("hw_counters"));
    }

    /** State and physical state as people read them: {@code ACTIVE/LinkUp}. */
    public String stateText() {
        return state.map(LinkState::name).orElse("unknown") + "/" + physicalState.map(LinkState::name).orElse("unknown");
    }
}
