package io.railyard.operator.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.railyard.api.TrainingJobStatus;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The nccl-watch sidecar's latest verdict, from the end of its log, with each named rank's address matched to the
 * job's pod and node: the pod's IP, or the node's with the host network.
 *
 * @param state healthy, lagging, stalled, missing or unavailable
 */
public record StallVerdict(String state, String message, List<TrainingJobStatus.StalledRank> ranks) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The last verdict line of the log; empty when there is none yet. */
    public static Optional<StallVerdict> of(String log, List<Pod> pods) {
        Map<String, Pod> byAddress = new HashMap<>();
        for (Pod pod : pods) {
            if (pod.getStatus() != null && pod.getStatus().getPodIP() != null) {
                byAddress.put(pod.getStatus().getPodIP(), pod);
            }
        }
        String[] lines = log.split("\r?\n");
        for (int i = lines.length - 1; i >= 0; i--) {
            JsonNode line;
            try {
                line = lines[i].startsWith("{") ? JSON.readTree(lines[i]) : null;
            } catch (IOException e) {
                line = null; // a line cut by the log's tail
            }
            if (line == null || !line.hasNonNull("state")) {
                continue;
            }
            List<TrainingJobStatus.StalledRank> ranks = new ArrayList<>();
            for (JsonNode rank : line.path("ranks")) {
                TrainingJobStatus.StalledRank entry = new TrainingJobStatus.StalledRank();
                entry.rank = rank.path("rank").isInt() && rank.path("rank").asInt() >= 0 ? rank.path("rank").asInt() : null;
                entry.host = rank.path("host").isNull() ? null : rank.path("host").asText(null);
                entry.reason = rank.path("reason").asText(null);
                Pod pod = entry.host == null ? null : byAddress.get(entry.host);
                if (pod != null) {
                    entry.pod = pod.getMetadata().getName();
                    entry.node = pod.getSpec().getNodeName();
                }
                ranks.add(entry);
            }
            return Optional.of(new StallVerdict(line.path("state").asText(), line.path("message").asText(""), ranks));
        }
        return Optional.empty();
    }

    /** The one node that holds every named rank with a known pod, else empty. */
    public Optional<String> singleNode() {
        List<String> nodes = ranks.stream().map(r -> r.node).filter(java.util.Objects::nonNull).distinct().toList();
        return nodes.size() == 1 ? Optional.of(nodes.getFirst()) : Optional.empty();
    }

    /** The message, with each named rank's pod and node. */
    public String describe() {
        List<String> named = ranks.stream().filter(r -> r.pod != null).limit(8)
                .map(r -> (r.rank != null ? "rank " + r.rank : r.host) + " in pod " + r.pod + " on node " + r.node).distinct().toList();
        return message + (named.isEmpty() ? "" : " (" + String.join(", ", named) + ")");
    }
}
