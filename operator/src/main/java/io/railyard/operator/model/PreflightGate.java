package io.railyard.operator.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.railyard.api.Names;
import io.railyard.api.PreflightSpec;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import io.railyard.operator.preflight.Link;
import io.railyard.operator.preflight.PreflightPods;
import io.railyard.operator.preflight.PreflightVerdict;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The TrainingJob's preflight gate: an init container in every pod measures its HCAs to the next pod's (pod i sends
 * to pod i+1, the last to the first) before torchrun starts. Its figures come back in the container's termination
 * message, so the operator reads them from the pods it already watches, with no log requests.
 */
public final class PreflightGate {
    public static final int DEFAULT_MIN_PERCENT = 80;
    public static final int DEFAULT_TIMEOUT_SECONDS = 300;
    private static final int DURATION_SECONDS = 5;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Not asked for, still measuring, passed, or failed (with every pod's figures in). */
    public enum State { OFF, MEASURING, PASSED, FAILED }

    /**
     * @param nodesToMark nodes the verdict blames (suspect or failed)
     * @param decidesAt while a pod's preflight has failed and others still measure, when the gate stops waiting for them
     */
    public record Result(State state, TrainingJobStatus.Preflight status, List<String> nodesToMark, Instant decidesAt) {
        Result(State state, TrainingJobStatus.Preflight status, List<String> nodesToMark) {
            this(state, status, nodesToMark, null);
        }

        /** A pod's preflight failed and others still measure: the job waits for them instead of restarting. */
        public boolean holdsFailure() {
            return state == State.MEASURING && status != null;
        }
    }

    private PreflightGate() {}

    /** Whether the job's pods carry the gate: asked for, and more than one node to pair. */
    public static boolean enabled(TrainingJob job) {
        return job.getSpec().preflight != null && job.getSpec().nodes > 1;
    }

    static io.fabric8.kubernetes.api.model.Container container(JobSettings settings, int index, String railyardImage) {
        PreflightSpec preflight = settings.spec().preflight;
        int nodes = settings.spec().nodes;
        String peer = settings.podName((index + 1) % nodes) + "." + settings.name() + "." + settings.namespace() + ".svc";
        // on the host's network the job's own derived port range avoids another job's listeners
        int portBase = settings.hostNetwork() ? settings.masterPort() + 1 : PreflightPods.PORT_BASE;
        PreflightPods.Settings pods = new PreflightPods.Settings(preflight.image != null ? preflight.image : railyardImage, settings.rdmaResource(),
                settings.devicesPerNode(), settings.hostNetwork(), timeout(preflight), DURATION_SECONDS);
        io.fabric8.kubernetes.api.model.Container gate = PreflightPods.gate(peer, portBase, minPercent(preflight), pods);
        if (settings.dra()) { // the pod's claim, whose NICs the trainer gets too
            gate.setResources(new ResourceRequirementsBuilder().withClaims(PodModel.claims(settings)).build());
        }
        return gate;
    }

    public static Result observe(TrainingJob job, List<Pod> pods, Instant now) {
        if (!enabled(job)) {
            return new Result(State.OFF, null, List.of());
        }
        int nodes = job.getSpec().nodes;
        Map<Integer, Pod> byIndex = new TreeMap<>();
        for (Pod pod : pods) {
            String index = pod.getMetadata().getLabels() == null ? null : pod.getMetadata().getLabels().get(Names.INDEX_LABEL);
            if (index != null && index.matches("\\d+")) {
                byIndex.put(Integer.parseInt(index), pod);
            }
        }
        List<Link> links = new ArrayList<>();
        int finished = 0;
        Instant firstFailure = null;
        for (int i = 0; i < nodes; i++) {
            Pod pod = byIndex.get(i);
            Pod next = byIndex.get((i + 1) % nodes);
            Optional<ContainerStateTerminated> done = pod == null ? Optional.empty() : terminated(pod);
            if (done.isEmpty()) {
                continue;
            }
            finished++;
            String from = pod.getSpec().getNodeName();
            String to = next == null ? "pod " + ((i + 1) % nodes) : String.valueOf(next.getSpec().getNodeName());
            List<Link> own = links(done.get(), from, to);
            links.addAll(own);
            if (done.get().getExitCode() != 0 && firstFailure == null) {
                firstFailure = done.get().getFinishedAt() == null ? now : Instant.parse(done.get().getFinishedAt());
            }
        }
        if (finished == 0) {
            return new Result(State.MEASURING, null, List.of());
        }
        boolean failed = firstFailure != null;
        boolean everyoneDone = finished == nodes;
        Instant decidesAt = failed ? firstFailure.plusSeconds(timeout(job.getSpec().preflight)) : null;
        boolean waitedEnough = failed && now.isAfter(decidesAt);
        if (!failed && !everyoneDone) {
            return new Result(State.MEASURING, null, List.of());
        }
        List<String> nodeNames = byIndex.values().stream().map(pod -> pod.getSpec().getNodeName()).filter(n -> n != null).toList();
        PreflightVerdict verdict = PreflightVerdict.judge(nodeNames, links, Map.of());
        TrainingJobStatus.Preflight status = status(verdict);
        if (failed && !everyoneDone && !waitedEnough) {
            return new Result(State.MEASURING, status, List.of(), decidesAt.plusMillis(1));
        }
        List<String> blamed = verdict.nodes().stream().filter(n -> !n.ok()).map(PreflightVerdict.NodeVerdict::node).toList();
        return new Result(verdict.passed() ? State.PASSED : State.FAILED, status, blamed);
    }

    private static Optional<ContainerStateTerminated> terminated(Pod pod) {
        List<ContainerStatus> statuses = pod.getStatus() == null || pod.getStatus().getInitContainerStatuses() == null ? List.of()
                : pod.getStatus().getInitContainerStatuses();
        return statuses.stream().filter(s -> PreflightPods.CONTAINER.equals(s.getName()))
                .map(s -> s.getState() != null && s.getState().getTerminated() != null ? s.getState().getTerminated()
                        : s.getLastState() != null ? s.getLastState().getTerminated() : null)
                .filter(t -> t != null).findFirst();
    }

    /** The links a pod's helper judged, from its termination message; a message that says nothing is one failed link. */
    private static List<Link> links(ContainerStateTerminated done, String from, String to) {
        List<Link> links = new ArrayList<>();
        String error = "preflight exited " + done.getExitCode() + (done.getReason() == null ? "" : " (" + done.getReason() + ")");
        try {
            JsonNode message = JSON.readTree(done.getMessage() == null ? "{}" : done.getMessage());
            for (JsonNode link : message.path("links")) {
                links.add(new Link(from, to, text(link, "hca"), null, number(link, "gbps"), number(link, "lineRateGbps"), number(link, "percent"),
                        Link.Verdict.valueOf(link.path("verdict").asText("failed").toUpperCase(java.util.Locale.ROOT)), text(link, "reason"), null));
            }
            if (message.hasNonNull("error")) {
                error = message.path("error").asText();
            }
        } catch (java.io.IOException | IllegalArgumentException e) {
            error = error + ", its termination message unreadable";
        }
        if (links.isEmpty()) {
            links.add(Link.failed(from, to, null, error, done.getExitCode() != 0 && error.contains("no RDMA device") ? from : null));
        }
        return links;
    }

    private static TrainingJobStatus.Preflight status(PreflightVerdict verdict) {
        TrainingJobStatus.Preflight status = new TrainingJobStatus.Preflight();
        status.passed = verdict.passed();
        status.message = verdict.summary();
        status.links = verdict.links().stream().map(link -> {
            TrainingJobStatus.PreflightLink entry = new TrainingJobStatus.PreflightLink();
            entry.from = link.client();
            entry.to = link.server();
            entry.hca = link.hca();
            entry.gbps = link.gbps();
            entry.lineRateGbps = link.lineRateGbps();
            entry.percent = link.percent();
            entry.verdict = link.verdict().toString();
            entry.reason = link.reason();
            return entry;
        }).toList();
        return status;
    }

    static int minPercent(PreflightSpec preflight) {
        return preflight.minLineRatePercent == null ? DEFAULT_MIN_PERCENT : preflight.minLineRatePercent;
    }

    static int timeout(PreflightSpec preflight) {
        return preflight.timeoutSeconds == null ? DEFAULT_TIMEOUT_SECONDS : preflight.timeoutSeconds;
    }

    private static String text(JsonNode node, String field) {
        return node.hasNonNull(field) ? node.path(field).asText() : null;
    }

    private static Double number(JsonNode node, String field) {
        return node.path(field).isNumber() ? node.path(field).asDouble() : null;
    }
}
