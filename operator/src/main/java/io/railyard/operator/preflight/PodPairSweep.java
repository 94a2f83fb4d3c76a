package io.railyard.operator.preflight;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Measurement pods between node pairs, a round at a time (preflight, speedup): server pods, then (once they have
 * addresses) client pods, then each pair judged from its two pods while they still exist, then the round's pods
 * deleted. The pods' state is read with one list per poll, by the run's label. On the pod network a NetworkPolicy
 * ({@link SweepIsolation}) keeps other pods off the run's test ports while it lasts.
 */
public final class PodPairSweep {
    /** The pod of one role of a pair; {@code serverAddress} is null for the server. */
    public interface Pods {
        Pod of(String name, String role, Pairing.Pair pair, String serverAddress);
    }

    /** One pair's results from its pods; a pod is null when it was never created (its server never ran). */
    public interface Judge<R> {
        List<R> of(Pairing.Pair pair, Pod server, Pod client);
    }

    /**
     * @param label the label key that marks the run's pods, its value {@code run}
     * @param createRate pods created per second at most
     * @param podNetwork whether the pods are on the pod network, where the run's NetworkPolicy closes them to other pods
     */
    public record Plan(String namespace, String label, String run, String prefix, int timeoutSeconds, boolean keep, Duration poll, double createRate,
            boolean podNetwork) {}

    private static final int CREATORS = 16;

    private final KubernetesClient client;
    private final Plan plan;
    private final Pods pods;
    private final Consumer<String> progress;

    public PodPairSweep(KubernetesClient client, Plan plan, Pods pods, Consumer<String> progress) {
        this.client = client;
        this.plan = plan;
        this.pods = pods;
        this.progress = progress;
    }

    /**
     * @param ok whether a result counts as good, for the progress line
     * @param okWords what the good ones are, in the progress line: "7 of 8 links ok"
     */
    public <R> List<R> run(List<List<Pairing.Pair>> rounds, Judge<R> judge, Predicate<R> ok, String okWords) throws InterruptedException {
        if (plan.podNetwork()) {
            SweepIsolation.create(client, plan).ifPresent(progress);
        }
        try {
            List<R> results = new ArrayList<>();
            for (int r = 0; r < rounds.size(); r++) {
                results.addAll(round(r, rounds.size(), rounds.get(r), judge, ok, okWords));
            }
            return results;
        } finally {
            if (plan.podNetwork() && !plan.keep()) {
                SweepIsolation.delete(client, plan);
            }
        }
    }

    private <R> List<R> round(int r, int total, List<Pairing.Pair> pairs, Judge<R> judge, Predicate<R> ok, String okWords) throws InterruptedException {
        String label = "round " + (r + 1) + " of " + total;
        Instant deadline = Instant.now().plusSeconds(plan.timeoutSeconds());
        List<Pod> servers = new ArrayList<>();
        for (int p = 0; p < pairs.size(); p++) {
            servers.add(pods.of(name(r, p, PreflightPods.SERVER), PreflightPods.SERVER, pairs.get(p), null));
        }
        createAll(servers);
        progress.accept(label + ": " + servers.size() + " server pods created, waiting for them to run");
        Map<String, Pod> seen = await(deadline, pod -> hasAddress(pod) || PodTrouble.of(pod).isPresent() || PodTrouble.finished(pod));
        List<Pod> clients = new ArrayList<>();
        for (int p = 0; p < pairs.size(); p++) {
            Pod server = seen.get(name(r, p, PreflightPods.SERVER));
            if (server != null && hasAddress(server) && !PodTrouble.finished(server)) {
                clients.add(pods.of(name(r, p, PreflightPods.CLIENT), PreflightPods.CLIENT, pairs.get(p), server.getStatus().getPodIP()));
            }
        }
        createAll(clients);
        progress.accept(label + ": " + clients.size() + " client pods created, measuring");
        seen = await(deadline, pod -> !pod.getMetadata().getName().endsWith(PreflightPods.CLIENT) || PodTrouble.finished(pod)
                || PodTrouble.of(pod).isPresent());
        List<R> results = new ArrayList<>();
        for (int p = 0; p < pairs.size(); p++) {
            results.addAll(judge.of(pairs.get(p), seen.get(name(r, p, PreflightPods.SERVER)), seen.get(name(r, p, PreflightPods.CLIENT))));
        }
        progress.accept(label + ": " + results.stream().filter(ok).count() + " of " + results.size() + " " + okWords);
        if (!plan.keep()) {
            client.pods().inNamespace(plan.namespace()).withLabel(plan.label(), plan.run()).delete();
        }
        return results;
    }

    private String name(int round, int pair, String role) {
        return plan.prefix() + "-" + plan.run() + "-" + round + "-" + pair + "-" + role;
    }

    /** Polls the run's pods, one list a time, until each of them satisfies {@code settled} or the deadline passes. */
    private Map<String, Pod> await(Instant deadline, Predicate<Pod> settled) throws InterruptedException {
        while (true) {
            Map<String, Pod> found = new HashMap<>();
            client.pods().inNamespace(plan.namespace()).withLabel(plan.label(), plan.run()).list().getItems()
                    .forEach(pod -> found.put(pod.getMetadata().getName(), pod));
            if (found.values().stream().allMatch(settled) || Instant.now().isAfter(deadline)) {
                return found;
            }
            Thread.sleep(plan.poll().toMillis());
        }
    }

    public static boolean hasAddress(Pod pod) {
        return pod.getStatus() != null && pod.getStatus().getPodIP() != null && "Running".equals(pod.getStatus().getPhase());
    }

    public static String phase(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getPhase() == null ? "Pending" : pod.getStatus().getPhase();
    }

    /** Creates the pods from a few threads, starting at most {@code plan.createRate()} a second. */
    private void createAll(List<Pod> created) throws InterruptedException {
        try (ExecutorService creators = Executors.newFixedThreadPool(CREATORS, Thread.ofPlatform().name("sweep-create-", 0).daemon().factory())) {
            long start = System.nanoTime();
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < created.size(); i++) {
                long wait = startOf(i, plan.createRate()) - (System.nanoTime() - start);
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait); // pacing the API server, not waiting for a result
                }
                Pod pod = created.get(i);
                futures.add(creators.submit(() -> client.resource(pod).create()));
            }
            for (Future<?> future : futures) {
                try {
                    future.get();
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
                }
            }
        }
    }

    /** When the i-th pod of a round may be created, in nanoseconds from the first: {@code rate} a second. */
    public static long startOf(int index, double rate) {
        return (long) (index * 1e9 / rate);
    }
}
