package io.railyard.fabric;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** InfiniBand lane speeds: the names ibnetdiscover prints and the per-lane rates iblinkinfo prints for them. */
public final class LaneSpeed {
    private record Speed(String name, double laneGbps) {}

    /** In increasing order of rate. */
    private static final List<Speed> SPEEDS = List.of(new Speed("SDR", 2.5), new Speed("DDR", 5), new Speed("QDR", 10),
            new Speed("FDR10", 10.3125), new Speed("FDR", 14.0625), new Speed("EDR", 25.78125), new Speed("HDR", 53.125),
            new Speed("NDR", 106.25), new Speed("XDR", 212.5));

    /** A lookup, not a search of the table: a large fabric ranks every cable's speed twice. */
    private static final Map<String, Integer> RANKS = IntStream.range(0, SPEEDS.size()).boxed()
            .collect(Collectors.toUnmodifiableMap(i -> SPEEDS.get(i).name, i -> i));

    private LaneSpeed() {}

    /** The name of a per-lane rate, or {@code <rate>Gbps} for one this table does not know. */
    public static String name(double laneGbps) {
        return SPEEDS.stream().filter(s -> Math.abs(s.laneGbps - laneGbps) < 0.01).map(Speed::name).findFirst()
                .orElse(laneGbps + "Gbps");
    }

    /** The name of a speed by its rank. */
    public static String nameOfRank(int rank) {
        return SPEEDS.get(rank).name;
    }

    /** The speed named in {@code text[from, to)} in capitals: one of the table's own names where it is one, not a new string a port. */
    public static String named(String text, int from, int to) {
        for (int i = SPEEDS.size() - 1; i >= 0; i--) { // the fastest first: a large fabric is a new one
            String name = SPEEDS.get(i).name;
            if (name.length() == to - from && text.regionMatches(true, from, name, 0, to - from)) {
                return name;
            }
        }
        return text.substring(from, to).toUpperCase(Locale.ROOT);
    }

    /** The rank of a named speed (higher is faster), or -1 for a name this table does not know. */
    public static int rank(String name) {
        Integer rank = RANKS.get(name);
        if (rank == null) {
            rank = RANKS.getOrDefault(name.toUpperCase(Locale.ROOT), -1);
        }
        return rank;
    }
}
