package io.railyard.diagnose.inspector;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One rank's interval as its nccl-speed sidecar sends it to the job's first pod: the rank, its host and its speeds,
 * the {@value #KEPT} that took the most time, as one JSON line.
 */
public record RankSummary(String rank, String host, List<IntervalSpeeds.Speed> speeds) {
    /** Enough for every collective a training step runs; the rest stays on the rank's own /metrics. */
    static final int KEPT = 32;
    private static final ObjectMapper JSON = new ObjectMapper();

    public RankSummary {
        speeds = speeds.stream().sorted((a, b) -> Double.compare(b.medianSeconds() * b.records(), a.medianSeconds() * a.records()))
                .limit(KEPT).toList();
    }

    public String toJson() {
        ObjectNode line = JSON.createObjectNode().put("rank", rank).put("host", host);
        ArrayNode speedsNode = line.putArray("speeds");
        for (IntervalSpeeds.Speed speed : speeds) {
            speedsNode.addObject().put("collective", speed.key().operation()).put("size", speed.key().size())
                    .put("comm", speed.key().communicator()).put("median", speed.medianGBps()).put("p10", speed.p10GBps())
                    .put("seconds", speed.medianSeconds()).put("records", speed.records());
        }
        return line.toString();
    }

    /** The summary a line holds; empty for anything else. */
    public static Optional<RankSummary> parse(String line) {
        JsonNode node;
        try {
            node = JSON.readTree(line);
        } catch (IOException e) {
            return Optional.empty();
        }
        if (node == null || !node.path("rank").isTextual() || !node.path("speeds").isArray()) {
            return Optional.empty();
        }
        List<IntervalSpeeds.Speed> speeds = new ArrayList<>();
        for (JsonNode speed : node.path("speeds")) {
            if (!speed.path("median").isNumber() || !speed.path("collective").isTextual()) {
                return Optional.empty();
            }
            speeds.add(new IntervalSpeeds.Speed(new IntervalSpeeds.Key(speed.path("collective").asText(), speed.path("size").asText(""),
                    speed.path("comm").asText("")), speed.path("median").asDouble(), speed.path("p10").asDouble(),
                    speed.path("seconds").asDouble(), speed.path("records").asLong()));
        }
        return Optional.of(new RankSummary(node.path("rank").asText(), node.path("host").asText(""), speeds));
    }
}
