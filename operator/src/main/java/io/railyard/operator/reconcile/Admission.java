package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.railyard.api.TrainingJobStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Pods the API server refuses to create: Pod Security admission, a ResourceQuota, a validating webhook, validation.
 * The same request would be refused again until someone changes the namespace, the quota or the job, so the operator
 * says why (the PodsRejected condition, the API's own words) and waits before it tries again: 10 s after the first
 * refusal, doubling to 5 minutes, or at once when the job's spec changes.
 */
final class Admission {
    static final String CONDITION = "PodsRejected";
    private static final Duration FIRST = Duration.ofSeconds(10);
    private static final Duration LONGEST = Duration.ofMinutes(5);

    private Admission() {}

    /** A refusal, not a failure of the request (a conflict, throttling, an API server down): retrying will not help. */
    static boolean refusal(KubernetesClientException e) {
        return e.getCode() == 400 || e.getCode() == 403 || e.getCode() == 422;
    }

    /** What refused it, from the API's message: Pod Security admission and quotas say so in their own words. */
    static String reason(KubernetesClientException e) {
        String message = message(e);
        if (message.contains("violates PodSecurity")) {
            return "PodSecurity";
        }
        if (message.contains("exceeded quota")) {
            return "QuotaExceeded";
        }
        if (message.contains("admission webhook")) {
            return "WebhookDenied";
        }
        return e.getCode() == 422 ? "Invalid" : "Forbidden";
    }

    /** The API server's message, as {@code kubectl} would print it. */
    static String message(KubernetesClientException e) {
        return e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : String.valueOf(e.getMessage());
    }

    /** What a user does about it. */
    static String remedy(String reason) {
        return switch (reason) {
            case "PodSecurity" -> "label the namespace pod-security.kubernetes.io/enforce=privileged, or leave out what the message names"
                    + " (README: Pod Security)";
            case "QuotaExceeded" -> "raise the namespace's ResourceQuota or ask for less";
            case "WebhookDenied" -> "see the webhook's policy";
            default -> "fix what the message names in the TrainingJob";
        };
    }

    /** The wait after the given number of refusals in a row. */
    static Duration delay(int refusals) {
        Duration delay = FIRST.multipliedBy(1L << Math.min(refusals - 1, 10));
        return delay.compareTo(LONGEST) > 0 ? LONGEST : delay;
    }

    /** When the next try is due after a refusal; none when nothing was refused. */
    static Optional<Instant> nextTry(TrainingJobStatus status) {
        TrainingJobStatus.PodRejection rejection = status.podRejection;
        if (rejection == null || rejection.count == null || rejection.last == null) {
            return Optional.empty();
        }
        return Optional.of(Instant.parse(rejection.last).plus(delay(rejection.count)));
    }

    /** How long the next try must still wait; none when nothing was refused, the wait is over, or the spec changed since. */
    static Optional<Duration> waiting(TrainingJobStatus status, long generation, Instant now) {
        Optional<Instant> next = nextTry(status);
        if (next.isEmpty()) {
            return Optional.empty();
        }
        boolean changed = status.conditions != null && status.conditions.stream().filter(c -> c.getType().equals(CONDITION))
                .map(Condition::getObservedGeneration).anyMatch(observed -> observed == null || observed != generation);
        return changed || !now.isBefore(next.get()) ? Optional.empty() : Optional.of(Duration.between(now, next.get()));
    }
}
