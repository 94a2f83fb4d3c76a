package io.railyard.bench;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.railyard.api.Names;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * A watch of a job's pods, each by name with its attempt label: the benches time a gang as a client of the API server
 * sees it, without lists of the gang (each a walk and a copy of thousands of pods) taking the cores from the operator
 * they time.
 */
final class JobPodsWatch implements AutoCloseable {
    private final Map<String, String> attempts = new ConcurrentHashMap<>();
    /** Every pod the watch has shown, deleted or not. */
    private final Set<String> shown = ConcurrentHashMap.newKeySet();
    /** When the watch last showed a pod deleted, System.nanoTime(); 0 before any. */
    private volatile long lastDeletion;
    private final Watch watch;

    JobPodsWatch(KubernetesClient client, String namespace, String job) {
        watch = client.pods().inNamespace(namespace).withLabel(Names.JOB_LABEL, job).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Pod pod) {
                if (action == Action.DELETED) {
                    attempts.remove(pod.getMetadata().getName());
                    lastDeletion = System.nanoTime();
                } else {
                    attempts.put(pod.getMetadata().getName(), pod.getMetadata().getLabels().getOrDefault(Names.ATTEMPT_LABEL, ""));
                    shown.add(pod.getMetadata().getName());
                }
            }

            @Override
            public void onClose(WatcherException cause) {}
        });
    }

    /** Until {@code count} of the job's pods exist. */
    void await(int count) throws InterruptedException {
        await(count, attempt -> true);
    }

    /** Until {@code count} of the job's pods carry an attempt label that {@code attempt} accepts. */
    void await(int count, Predicate<String> attempt) throws InterruptedException {
        while (attempts.values().stream().filter(attempt).count() < count) {
            Thread.sleep(10);
        }
    }

    /** Until the watch has shown {@code count} pods (a new watch shows those that exist first) and all of them are gone. */
    void awaitDeleted(int count) throws InterruptedException {
        while (shown.size() < count || !attempts.isEmpty()) {
            Thread.sleep(10);
        }
    }

    long lastDeletion() {
        return lastDeletion;
    }

    @Override
    public void close() {
        watch.close();
    }
}
