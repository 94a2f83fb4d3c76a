package io.railyard.cli;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.railyard.api.Names;
import io.railyard.operator.preflight.HelperOutput;
import io.railyard.operator.preflight.Link;
import io.railyard.operator.preflight.Pairing;
import io.railyard.operator.preflight.PreflightPods;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One sweep on a cluster, a round at a time: server pods, then (once they have addresses) client pods, then the
 * clients' and servers' logs, then the round's pods deleted. The pods' state is read with one list per poll.
 */
final class PreflightSweep {
    /** Where a pod's log comes from: the API's pods/log, or a test's stand-in (the CRUD mock server serves no logs). */
    interface PodLogs {
        Optional<String> read(String namespace, String pod);

        /**
         * One GET of pods/log per pod. The client's getLog first waits for the pod to be ready (a list and a watch),
         * which a finished pod does not need.
         */
        static PodLogs through(KubernetesClient client) {
            return (namespace, pod) -> {
                try {
                    return Optional.ofNullable(client.raw(client.getMasterUrl().toString().replaceAll("/$", "") + "/api/v1/namespaces/"
                            + namespace + "/pods/" + pod + "/log?container=" + PreflightPods.CONTAINER));
                } catch (KubernetesClientException e) {
                    return Optional.empty();
                }
            };
        }
    }

    /** @param lineRates each node's line rate from the agent's label, by node */
    /** @param createRate pods created per second at most */
    record Plan(String namespace, String run, PreflightPods.Settings settings, int minPercent, Map<String, Double> lineRates,
            Double lineRateOverride, boolean keep, Duration poll, double createRate) {}

    private static final int CREATORS = 16;

    private final KubernetesClient client;
    private final PodLogs logs;
    private final Plan plan;
    private final Consumer<String> progress;

    PreflightSweep(KubernetesClient client, PodLogs logs, Plan plan, Consumer<String> progress) {
        this.client = client;
        this.logs = logs;
        this.plan = plan;
        this.progress = progress;
    }

    List<Link> run(List<List<Pairing.Pair>> rounds) throws InterruptedException {
        List<Link> links = new ArrayList<>();
        for (int r = 0; r < rounds.size(); r++) {
            links.addAll(round(r, rounds.size(), rounds.get(r)));
        }
        return links;
    }

    private List<Link> round(int r, int total, List<Pairing.Pair> pairs) throws InterruptedException {
        String label = "round " + (r + 1) + " of " + total;
        Instant deadline = Instant.now().plusSeconds(plan.settings().timeoutSeconds());
        List<Pod> servers = new ArrayList<>();
        for (int p = 0; p < pairs.size(); p++) {
            Pairing.Pair pair = pairs.get(p);
            servers.add(PreflightPods.pod(plan.namespace(), plan.run(), name(r, p, PreflightPods.SERVER), PreflightPods.SERVER, pair.server(),
                    pair.client(), null, plan.settings()));
        }
        createAll(servers);
        progress.accept(label + ": " + servers.size() + " server pods created, waiting for them to run");
        Map<String, Pod> seen = await(deadline, pod -> hasAddress(pod) || PodTrouble.of(pod).isPresent() || PodTrouble.finished(pod));
        List<Pod> clients = new ArrayList<>();
        for (int p = 0; p < pairs.size(); p++) {
            Pod server = seen.get(name(r, p, PreflightPods.SERVER));
            if (server != null && hasAddress(server) && !PodTrouble.finished(server)) {
                Pairing.Pair pair = pairs.get(p);
                clients.add(PreflightPods.pod(plan.namespace(), plan.run(), name(r, p, PreflightPods.CLIENT), PreflightPods.CLIENT, pair.client(),
                        pair.server(), server.getStatus().getPodIP(), plan.settings()));
            }
        }
        createAll(clients);
        progress.accept(label + ": " + clients.size() + " client pods created, measuring");
        seen = await(deadline, pod -> !pod.getMetadata().getName().endsWith(PreflightPods.CLIENT) || PodTrouble.finished(pod)
                || PodTrouble.of(pod).isPresent());
        List<Link> links = new ArrayList<>();
        for (int p = 0; p < pairs.size(); p++) {
            links.addAll(links(pairs.get(p), seen.get(name(r, p, PreflightPods.SERVER)), seen.get(name(r, p, PreflightPods.CLIENT))));
        }
        progress.accept(label + ": " + links.stream().filter(Link::ok).count() + " of " + links.size() + " links ok");
        if (!plan.keep()) {
            client.pods().inNamespace(plan.namespace()).withLabel(Names.PREFLIGHT_LABEL, plan.run()).delete();
        }
        return links;
    }

    private String name(int round, int pair, String role) {
        return "preflight-" + plan.run() + "-" + round + "-" + pair + "-" + role;
    }

    /** Polls the run's pods, one list a time, until each of them satisfies {@code settled} or the deadline passes. */
    private Map<String, Pod> await(Instant deadline, Predicate<Pod> settled) throws InterruptedException {
        while (true) {
            Map<String, Pod> pods = new HashMap<>();
            client.pods().inNamespace(plan.namespace()).withLabel(Names.PREFLIGHT_LABEL, plan.run()).list().getItems()
                    .forEach(pod -> pods.put(pod.getMetadata().getName(), pod));
            if (pods.values().stream().allMatch(settled) || Instant.now().isAfter(deadline)) {
                return pods;
            }
            Thread.sleep(plan.poll().toMillis());
        }
    }

    /** The links of one pair, from the client's log (results) and the server's (its HCAs), or why there are none. */
    private List<Link> links(Pairing.Pair pair, Pod server, Pod clientPod) {
        if (server == null || clientPod == null) {
            return List.of(Link.failed(pair.client(), pair.server(), null, "server pod on " + pair.server() + " " + serverFailure(server),
                    pair.server()));
        }
        Optional<String> clientTrouble = PodTrouble.of(clientPod);
        if (clientTrouble.isPresent() && !PodTrouble.finished(clientPod)) {
            return List.of(Link.failed(pair.client(), pair.server(), null, "client pod on " + pair.client() + " " + clientTrouble.get(),
                    pair.client()));
        }
        if (!PodTrouble.finished(clientPod)) {
            return List.of(Link.failed(pair.client(), pair.server(), null,
                    "no result within " + plan.settings().timeoutSeconds() + " s (the client pod is still " + phase(clientPod) + ")", null));
        }
        HelperOutput.Output sent = output(clientPod);
        HelperOutput.Output received = output(server);
        if (sent.error() != null) {
            return List.of(Link.failed(pair.client(), pair.server(), null, sent.error(), pair.client()));
        }
        if (sent.runs().isEmpty()) {
            return List.of(Link.failed(pair.client(), pair.server(), null, "the client pod's log holds no ib_write_bw run", null));
        }
        List<Link> links = new ArrayList<>();
        for (HelperOutput.Run run : sent.runs()) {
            HelperOutput.Run peer = received.runs().stream().filter(s -> s.index() == run.index()).findFirst().orElse(null);
            String serverHca = peer == null ? null : peer.hca();
            links.add(run.gbps() == null
                    ? new Link(pair.client(), pair.server(), run.hca(), serverHca, null, null, null, Link.Verdict.FAILED, run.error(), null)
                    : Link.measured(pair.client(), pair.server(), run.hca(), serverHca, run.gbps(), lineRate(pair, run, peer), plan.minPercent()));
        }
        return links;
    }

    /** Why a server never took a client: the API's reason, its own log's, or that it did not start in time. */
    private String serverFailure(Pod server) {
        if (server == null) {
            return "was not created";
        }
        Optional<String> trouble = PodTrouble.of(server);
        if (trouble.isPresent()) {
            return trouble.get();
        }
        if (!PodTrouble.finished(server)) {
            return "did not start within " + plan.settings().timeoutSeconds() + " s (still " + phase(server) + ")";
        }
        HelperOutput.Output output = output(server);
        return "exited before its client started: " + (output.error() != null ? output.error()
                : output.runs().stream().map(HelperOutput.Run::error).filter(e -> e != null).findFirst().orElse("no error in its log"));
    }

    private HelperOutput.Output output(Pod pod) {
        return HelperOutput.parse(logs.read(plan.namespace(), pod.getMetadata().getName()).orElse(""));
    }

    /** The agent's labels of both ends, else what the pods read from sysfs, else --line-rate-gbps: the slower end counts. */
    private Double lineRate(Pairing.Pair pair, HelperOutput.Run sent, HelperOutput.Run received) {
        Double labelled = min(plan.lineRates().get(pair.client()), plan.lineRates().get(pair.server()));
        if (labelled != null) {
            return labelled;
        }
        Double read = min(sent.rateGbps(), received == null ? null : received.rateGbps());
        return read != null ? read : plan.lineRateOverride();
    }

    private static Double min(Double a, Double b) {
        return a == null ? b : b == null ? a : Math.min(a, b);
    }

    private static boolean hasAddress(Pod pod) {
        return pod.getStatus() != null && pod.getStatus().getPodIP() != null && "Running".equals(pod.getStatus().getPhase());
    }

    private static String phase(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getPhase() == null ? "Pending" : pod.getStatus().getPhase();
    }

    /** Creates the pods from a few threads, starting at most {@code plan.createRate()} a second. */
    private void createAll(List<Pod> pods) throws InterruptedException {
        try (ExecutorService creators = Executors.newFixedThreadPool(CREATORS, Thread.ofPlatform().name("preflight-create-", 0).daemon().factory())) {
            long start = System.nanoTime();
            List<Future<?>> created = new java.util.ArrayList<>();
            for (int i = 0; i < pods.size(); i++) {
                long wait = startOf(i, plan.createRate()) - (System.nanoTime() - start);
                if (wait > 0) {
                    java.util.concurrent.TimeUnit.NANOSECONDS.sleep(wait); // pacing the API server, not waiting for a result
                }
                Pod pod = pods.get(i);
                created.add(creators.submit(() -> client.resource(pod).create()));
            }
            for (Future<?> future : created) {
                try {
                    future.get();
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
                }
            }
        }
    }

    /** When the i-th pod of a round may be created, in nanoseconds from the first: {@code rate} a second. */
    static long startOf(int index, double rate) {
        return (long) (index * 1e9 / rate);
    }
}
