package io.railyard.agent.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.agent.health.NodeCondition.Type;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The state machine alone, on samples and times the test gives it. */
class NodeHealthTest {
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final NodeHealthConfig CONFIG = NodeHealthConfig.defaults();

    private static PortSample up(String port) {
        return new PortSample(port, true, "ACTIVE/LinkUp", null, Map.of());
    }

    private static PortSample down(String port) {
        return new PortSample(port, false, "DOWN/Polling", null, Map.of());
    }

    private static PortSample counters(String port, long linkDowned, long symbolErrors) {
        return new PortSample(port, true, "ACTIVE/LinkUp", linkDowned, Map.of("symbol_error", symbolErrors));
    }

    private static NodeCondition condition(NodeHealth health, Type type) {
        return health.conditions().stream().filter(c -> c.type() == type).findFirst().orElseThrow();
    }

    private static Instant at(long seconds) {
        return START.plusSeconds(seconds);
    }

    @Test
    void aPortDownIsTrueAtOnceAndFalseOnlyAfterTheStickyWindow() {
        NodeHealth health = new NodeHealth(CONFIG, START);
        assertThat(health.observe(at(0), List.of(up("mlx5_0:1"), up("mlx5_3:1")))).isEmpty();

        List<NodeCondition> changed = health.observe(at(1), List.of(up("mlx5_0:1"), down("mlx5_3:1")));

        assertThat(changed).singleElement().satisfies(c -> {
            assertThat(c.type()).isEqualTo(Type.RdmaPortDown);
            assertThat(c.status()).isTrue();
            assertThat(c.reason()).isEqualTo("PortNotActive");
            assertThat(c.message()).isEqualTo("mlx5_3 port 1: DOWN/Polling since 2026-01-01T00:00:01Z");
            assertThat(c.lastTransitionTime()).isEqualTo(at(1));
        });
        assertThat(health.allClear()).as("a True condition is waited out, polls are not skipped").isFalse();
        assertThat(health.observe(at(2), List.of(up("mlx5_0:1"), up("mlx5_3:1")))).isEmpty();
        assertThat(condition(health, Type.RdmaPortDown).status()).as("sticky").isTrue();
        assertThat(condition(health, Type.RdmaPortDown).message()).contains("clear since 2026-01-01T00:00:01Z");
        assertThat(health.observe(at(600), List.of(up("mlx5_0:1"), up("mlx5_3:1")))).isEmpty();

        assertThat(health.observe(at(601), List.of(up("mlx5_0:1"), up("mlx5_3:1")))).singleElement().satisfies(c -> {
            assertThat(c.status()).isFalse();
            assertThat(c.reason()).isEqualTo("AllPortsActive");
            assertThat(c.lastTransitionTime()).isEqualTo(at(601));
        });
        assertThat(health.allClear()).isTrue();
    }

    @Test
    void threeDownAndUpCyclesInTheWindowAreFlappingAndTheConditionDoesNotFlapWithThePort() {
        NodeHealth health = new NodeHealth(CONFIG, START);
        long t = 0;
        for (int cycle = 0; cycle < 3; cycle++) {
            health.observe(at(t++), List.of(up("mlx5_1:1")));
            health.observe(at(t++), List.of(down("mlx5_1:1")));
        }
        List<NodeCondition> changed = health.observe(at(t), List.of(up("mlx5_1:1")));

        assertThat(changed).extracting(NodeCondition::type).containsExactly(Type.RdmaLinkFlapping);
        assertThat(condition(health, Type.RdmaLinkFlapping).message()).isEqualTo("mlx5_1 port 1: down and up 3 times in 600 s");
        assertThat(condition(health, Type.RdmaPortDown).status()).as("down three times, and still within the sticky window").isTrue();
        health.observe(at(t + 1), List.of(down("mlx5_1:1")));
        assertThat(health.observe(at(t + 2), List.of(up("mlx5_1:1")))).as("no second transition while it keeps flapping").isEmpty();
    }

    @Test
    void linkDownedRisingIsFlappingEvenWhenNoPollSawThePortDown() {
        NodeHealth health = new NodeHealth(CONFIG, START);
        health.observe(at(0), List.of(counters("mlx5_2:1", 7, 0)));

        assertThat(health.observe(at(10), List.of(counters("mlx5_2:1", 10, 0)))).extracting(NodeCondition::type)
                .containsExactly(Type.RdmaLinkFlapping);
        assertThat(condition(health, Type.RdmaLinkFlapping).message()).isEqualTo("mlx5_2 port 1: link_downed +3 in 600 s");
    }

    @Test
    void symbolErrorsRisingFasterThanIbqueryerrorsThresholdPerHourArePortErrors() {
        NodeHealth health = new NodeHealth(CONFIG, START);
        health.observe(at(0), List.of(counters("mlx5_0:1", 0, 1000)));
        assertThat(health.observe(at(10), List.of(counters("mlx5_0:1", 0, 1010)))).as("10 in an hour is the threshold, not past it").isEmpty();

        assertThat(health.observe(at(20), List.of(counters("mlx5_0:1", 0, 1500)))).extracting(NodeCondition::type)
                .containsExactly(Type.RdmaPortErrors);
        assertThat(condition(health, Type.RdmaPortErrors).message()).isEqualTo("mlx5_0 port 1: symbol_error +500 within the last hour (limit 10/h)");
        assertThat(health.observe(at(3700 + 600), List.of(counters("mlx5_0:1", 0, 1500)))).as("an hour with no growth, then the sticky window")
                .extracting(NodeCondition::status).containsExactly(false);
    }

    @Test
    void aPortThatGoesAwayIsMissingUntilItIsBackAndExpectedPortsCountToo() {
        NodeHealthConfig expectTwo = new NodeHealthConfig(true, 0, CONFIG.flapping(), CONFIG.errors(), 3, CONFIG.taint(), 60);
        NodeHealth health = new NodeHealth(expectTwo, START);
        health.observe(at(0), List.of(up("mlx5_0:1"), up("mlx5_1:1")));
        assertThat(condition(health, Type.RdmaDeviceMissing).message()).isEqualTo("2 of the 3 expected ports present");

        health.observe(at(5), List.of(up("mlx5_0:1")));

        assertThat(condition(health, Type.RdmaDeviceMissing).message())
                .isEqualTo("mlx5_1 port 1: gone since 2026-01-01T00:00:05Z; 1 of the 3 expected ports present");
        assertThat(condition(health, Type.RdmaDeviceMissing).lastTransitionTime()).as("True since the first poll").isEqualTo(at(0));
    }

    @Test
    void aCounterThatGoesBackStartsItsWindowAgain() {
        NodeHealth health = new NodeHealth(CONFIG, START);
        health.observe(at(0), List.of(counters("mlx5_0:1", 5, 900)));
        health.observe(at(10), List.of(counters("mlx5_0:1", 0, 0))); // driver reloaded

        assertThat(health.observe(at(20), List.of(counters("mlx5_0:1", 1, 5)))).as("900 -> 0 -> 5 is a rise of 5, not a fall").isEmpty();
    }
}
