package io.railyard.operator.preflight;

import java.util.ArrayList;
import java.util.List;

/**
 * Which nodes test which, in rounds of disjoint pairs: a node holds all its tested HCAs for one pair at a time, so a
 * round can run every one of its pairs at once.
 */
public final class Pairing {
    /** ring: each node against the next (two rounds, three for an odd count); all: every pair (N-1 rounds, N if odd). */
    public enum Mode { RING, ALL }

    /** Two nodes under test: the client sends with ib_write_bw, the server receives. */
    public record Pair(String client, String server) {}

    private Pairing() {}

    public static List<List<Pair>> rounds(List<String> nodes, Mode mode) {
        if (nodes.size() < 2) {
            return List.of();
        }
        return mode == Mode.RING ? ring(nodes) : all(nodes);
    }

    /** Node i sends to node i+1, the last to the first; even links first, then odd ones, then the closing link if odd. */
    static List<List<Pair>> ring(List<String> nodes) {
        int n = nodes.size();
        if (n == 2) {
            return List.of(List.of(new Pair(nodes.get(0), nodes.get(1))));
        }
        List<Pair> even = new ArrayList<>();
        List<Pair> odd = new ArrayList<>();
        List<Pair> closing = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Pair pair = new Pair(nodes.get(i), nodes.get((i + 1) % n));
            if (i == n - 1 && n % 2 == 1) {
                closing.add(pair);
            } else {
                (i % 2 == 0 ? even : odd).add(pair);
            }
        }
        List<List<Pair>> rounds = new ArrayList<>(List.of(even, odd));
        if (!closing.isEmpty()) {
            rounds.add(closing);
        }
        return rounds;
    }

    /** The circle method: the first node stays, the others rotate; with an odd count one node sits out each round. */
    static List<List<Pair>> all(List<String> nodes) {
        List<String> circle = new ArrayList<>(nodes);
        if (circle.size() % 2 == 1) {
            circle.add(null);
        }
        int n = circle.size();
        List<List<Pair>> rounds = new ArrayList<>();
        for (int round = 0; round < n - 1; round++) {
            List<Pair> pairs = new ArrayList<>();
            for (int i = 0; i < n / 2; i++) {
                String a = circle.get(i);
                String b = circle.get(n - 1 - i);
                if (a != null && b != null) {
                    pairs.add(round % 2 == 0 ? new Pair(a, b) : new Pair(b, a));
                }
            }
            rounds.add(pairs);
            circle.add(1, circle.removeLast());
        }
        return rounds;
    }
}
