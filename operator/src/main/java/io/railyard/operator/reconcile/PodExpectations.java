package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The pods this operator created for each job's current run, as Kubernetes' own controllers keep them. A pod of the
 * run missing from the cache was deleted only if it was created here and then seen, or was never seen within the
 * wait: one just created whose watch event has not come, or one not created yet because a pod of the earlier run
 * still held its name, is not a failure.
 */
final class PodExpectations {
    private static final Duration WAIT = Duration.ofSeconds(60);

    /** @param seen whether the cache has shown it */
    private record Created(Instant at, boolean seen) {}

    private final Map<String, Map<String, Created>> runs = new ConcurrentHashMap<>();

    void created(String job, Collection<String> pods, Instant now) {
        Map<String, Created> run = runs.computeIfAbsent(job, j -> new ConcurrentHashMap<>());
        pods.forEach(pod -> run.put(pod, new Created(now, false)));
    }

    /** The run's pods that were deleted: created here, and gone from the cache after it showed them, or never shown. */
    Set<String> deleted(String job, Set<String> cached, Instant now) {
        Map<String, Created> run = runs.get(job);
        if (run == null) {
            return Set.of();
        }
        run.replaceAll((pod, created) -> cached.contains(pod) && !created.seen() ? new Created(created.at(), true) : created);
        return run.entrySet().stream().filter(entry -> !cached.contains(entry.getKey())
                && (entry.getValue().seen() || now.isAfter(entry.getValue().at().plus(WAIT)))).map(Map.Entry::getKey)
                .collect(Collectors.toSet());
    }

    /** When the first pod created here and not yet shown by the cache counts as deleted; null when none waits. */
    Instant nextUnseen(String job) {
        Map<String, Created> run = runs.get(job);
        return run == null ? null : run.values().stream().filter(created -> !created.seen()).map(created -> created.at().plus(WAIT).plusMillis(1))
                .min(Instant::compareTo).orElse(null);
    }

    /** The run's pods created here that the cache has not shown yet, within the wait: not to be created again. */
    Set<String> awaited(String job, Instant now) {
        Map<String, Created> run = runs.get(job);
        return run == null ? Set.of() : run.entrySet().stream().filter(entry -> !entry.getValue().seen()
                && !now.isAfter(entry.getValue().at().plus(WAIT))).map(Map.Entry::getKey).collect(Collectors.toSet());
    }

    /** The names of the run's pods created or moved to it here. */
    Set<String> expected(String job) {
        Map<String, Created> run = runs.get(job);
        return run == null ? Set.of() : Set.copyOf(run.keySet());
    }

    /** Pods the API server refused, or whose name another pod held: they were never created, so their absence is no deletion. */
    void refused(String job, Collection<String> pods) {
        Map<String, Created> run = runs.get(job);
        if (run != null) {
            pods.forEach(run::remove);
        }
    }

    /** The job's pods were deleted (a restart, a failure, the job gone): the next run starts empty. */
    void forget(String job) {
        runs.remove(job);
    }

    static Set<String> names(Collection<? extends HasMetadata> objects) {
        return objects.stream().map(object -> object.getMetadata().getName()).collect(Collectors.toSet());
    }
}
