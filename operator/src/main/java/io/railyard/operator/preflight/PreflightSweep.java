package io.railyard.operator.preflight;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.api.Names;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One preflight sweep on a cluster: the pod pairs of {@link PodPairSweep} running {@code railyard preflight-link}, each
 * pair's links judged from its client's log (results) and its server's (its HCAs), or from why its pods did not run.
 */
public final class PreflightSweep {
    /** @param lineRates each node's line rate from the agent's label, by node */
    public record Plan(String namespace, String run, PreflightPods.Settings settings, int minPercent, Map<String, Double> lineRates,
            Double lineRateOverride, boolean keep, Duration poll, double createRate) {}

    private final PodLogs logs;
    private final Plan plan;
    private final PodPairSweep pairs;

    public PreflightSweep(KubernetesClient client, PodLogs logs, Plan plan, Consumer<String> progress) {
        this.logs = logs;
        this.plan = plan;
        PodPairSweep.Plan sweep = new PodPairSweep.Plan(plan.namespace(), Names.PREFLIGHT_LABEL, plan.run(), "preflight",
                plan.settings().timeoutSeconds(), plan.keep(), plan.poll(), plan.createRate(), !plan.settings().hostNetwork());
        this.pairs = new PodPairSweep(client, sweep, (name, role, pair, serverAddress) -> PreflightPods.pod(plan.namespace(), plan.run(), name,
                role, role.equals(PreflightPods.SERVER) ? pair.server() : pair.client(),
                role.equals(PreflightPods.SERVER) ? pair.client() : pair.server(), serverAddress, plan.settings()), progress);
    }

    public List<Link> run(List<List<Pairing.Pair>> rounds) throws InterruptedException {
        return pairs.run(rounds, this::links, Link::ok, "links ok");
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
                    "no result within " + plan.settings().timeoutSeconds() + " s (the client pod is still " + PodPairSweep.phase(clientPod) + ")", null));
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
            return "did not start within " + plan.settings().timeoutSeconds() + " s (still " + PodPairSweep.phase(server) + ")";
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
}
