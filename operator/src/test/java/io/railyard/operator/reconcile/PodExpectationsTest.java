package io.railyard.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A pod created but not yet shown by the cache is neither created again nor taken for a deleted one, until the wait ends. */
class PodExpectationsTest {
    private static final Instant CREATED = Instant.parse("2026-03-01T10:00:00Z");
    private final PodExpectations expectations = new PodExpectations();

    @Test
    void aCreatedPodTheCacheHasNotShownIsAwaitedNotCreatedAgain() {
        expectations.created("ns/job", List.of("job-0", "job-1"), CREATED);

        assertThat(expectations.deleted("ns/job", Set.of("job-0"), CREATED.plusSeconds(1))).isEmpty();
        assertThat(expectations.awaited("ns/job", CREATED.plusSeconds(1))).containsExactly("job-1");
    }

    @Test
    void aPodNeverShownWithinTheWaitIsNoLongerAwaitedButDeleted() {
        expectations.created("ns/job", List.of("job-0"), CREATED);
        Instant late = CREATED.plus(Duration.ofSeconds(61));

        assertThat(expectations.awaited("ns/job", late)).isEmpty();
        assertThat(expectations.deleted("ns/job", Set.of(), late)).containsExactly("job-0");
    }

    @Test
    void aNameAnotherPodHeldIsNotAwaitedAndItsAbsenceIsNoDeletion() {
        expectations.created("ns/job", List.of("job-0", "job-1"), CREATED);
        expectations.refused("ns/job", Set.of("job-1"));

        assertThat(expectations.awaited("ns/job", CREATED.plusSeconds(1))).containsExactly("job-0");
        assertThat(expectations.deleted("ns/job", Set.of(), CREATED.plus(Duration.ofMinutes(5)))).containsExactly("job-0");
    }

    @Test
    void aPodShownAndThenGoneIsDeletedAndNotAwaited() {
        expectations.created("ns/job", List.of("job-0"), CREATED);
        expectations.deleted("ns/job", Set.of("job-0"), CREATED.plusSeconds(1));

        assertThat(expectations.awaited("ns/job", CREATED.plusSeconds(2))).isEmpty();
        assertThat(expectations.deleted("ns/job", Set.of(), CREATED.plusSeconds(2))).containsExactly("job-0");
    }
}
