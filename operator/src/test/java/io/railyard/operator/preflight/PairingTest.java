package io.railyard.operator.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PairingTest {
    private static List<String> nodes(int count) {
        return IntStream.range(0, count).mapToObj(i -> String.format("node-%02d", i)).toList();
    }

    private static void assertDisjoint(List<List<Pairing.Pair>> rounds) {
        for (List<Pairing.Pair> round : rounds) {
            Set<String> busy = new HashSet<>();
            for (Pairing.Pair pair : round) {
                assertThat(busy.add(pair.client())).as("%s twice in one round", pair.client()).isTrue();
                assertThat(busy.add(pair.server())).as("%s twice in one round", pair.server()).isTrue();
            }
        }
    }

    @Test
    void aRingOfSixteenTakesTwoRoundsAndTestsEachNodeAgainstTheNext() {
        List<List<Pairing.Pair>> rounds = Pairing.rounds(nodes(16), Pairing.Mode.RING);

        assertThat(rounds).hasSize(2).allSatisfy(round -> assertThat(round).hasSize(8));
        assertDisjoint(rounds);
        assertThat(rounds.stream().flatMap(List::stream))
                .containsExactlyInAnyOrderElementsOf(IntStream.range(0, 16)
                        .mapToObj(i -> new Pairing.Pair(nodes(16).get(i), nodes(16).get((i + 1) % 16))).toList());
    }

    @Test
    void anOddRingClosesInAThirdRound() {
        List<List<Pairing.Pair>> rounds = Pairing.rounds(nodes(5), Pairing.Mode.RING);

        assertThat(rounds).hasSize(3);
        assertDisjoint(rounds);
        assertThat(rounds.get(2)).containsExactly(new Pairing.Pair("node-04", "node-00"));
        assertThat(rounds.stream().mapToInt(List::size).sum()).isEqualTo(5);
    }

    @Test
    void twoNodesAreOnePairAndOneNodeIsNone() {
        assertThat(Pairing.rounds(nodes(2), Pairing.Mode.RING)).containsExactly(List.of(new Pairing.Pair("node-00", "node-01")));
        assertThat(Pairing.rounds(nodes(1), Pairing.Mode.ALL)).isEmpty();
    }

    @Test
    void allPairsOfSixTakeFiveRoundsOfThreeAndMeetEveryPairOnce() {
        List<List<Pairing.Pair>> rounds = Pairing.rounds(nodes(6), Pairing.Mode.ALL);

        assertThat(rounds).hasSize(5).allSatisfy(round -> assertThat(round).hasSize(3));
        assertDisjoint(rounds);
        Set<Set<String>> met = new HashSet<>();
        rounds.stream().flatMap(List::stream).forEach(pair -> assertThat(met.add(Set.of(pair.client(), pair.server()))).isTrue());
        assertThat(met).hasSize(15);
    }

    @Test
    void allPairsOfAnOddCountLeaveOneNodeOutEachRound() {
        List<List<Pairing.Pair>> rounds = Pairing.rounds(nodes(5), Pairing.Mode.ALL);

        assertThat(rounds).hasSize(5).allSatisfy(round -> assertThat(round).hasSize(2));
        assertDisjoint(rounds);
        assertThat(rounds.stream().mapToInt(List::size).sum()).isEqualTo(10);
    }
}
