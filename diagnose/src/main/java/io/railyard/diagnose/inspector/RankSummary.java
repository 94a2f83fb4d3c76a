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
 * One pod's interval as its nccl-speed sidecar sends it to the job's first pod: the pod's node rank, its host and its
 * speeds, the {@value #KEPT} that took the most time, and each of its processes' own, the {@value #PROCESS_KEPT} that
 * took that process the most time, as one JSON line.
 */
public record RankSummary(String rank, String host, List<IntervalSpeeds.Speed> speeds, List<Process> processes) {
    /** Enough for every collective a training step runs; the rest stays on the rank's own /metrics. */
    static final int KEPT = 32;
    /** A process's collectives that matter to the job: the one it is judged on is among them. */
    static final int PROCESS_KEPT = 4;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One process of the pod: its global rank, its GPU (local rank) and that GPU's NIC (null where unknown). */
    public record Process(int rank, long pid, int gpu, String nic, List<IntervalSpeeds.Speed> speeds) {
        public Process {
            speeds = mostTime(speeds, PROCESS_KEPT);
        }
    }

    public RankSummary {
        speeds = mostTime(speeds, KEPT);
        processes = List.copyOf(processes);
    }

    /** A pod's summary without its processes' (records that name no process). */
    public RankSummary(String rank, String host, List<IntervalSpeeds.Speed> speeds) {
        this(rank, host, speeds, List.of());
    }

    private static List<IntervalSpeeds.Speed> mostTime(List<IntervalSpeeds.Speed> speeds, int kept) {
        return speeds.stream().sorted((a, b) -> Double.compare(b.medianSeconds() * b.records(), a.medianSeconds() * a.records()))
                .limit(kept).toList();
    }

    public String toJson() {
        ObjectNode line = JSON.createObjectNode().put("rank", rank).put("host", host);
        write(line.putArray("speeds"), speeds);
        if (!processes.isEmpty()) {
            ArrayNode processesNode = line.putArray("processes");
            for (Process process : processes) {
                ObjectNode node = processesNode.addObject().put("rank", process.rank()).put("pid", process.pid()).put("gpu", process.gpu());
                if (process.nic() != null) {
                    node.put("nic", process.nic());
                }
                write(node.putArray("speeds"), process.speeds());
            }
        }
        return line.toString();
    }

    private static void write(ArrayNode array, List<IntervalSpeeds.Speed> speeds) {
        for (IntervalSpeeds.Speed speed : speeds) {
            array.addObject().put("collective", speed.key().operation()).put("size", speed.key().size())
                    .put("comm", speed.key().communicator()).put("median", speed.medianGBps()).put("p10", speed.p10GBps())
                    .put("seconds", speed.medianSeconds()).put("records", speed.records());
        }
    }

    /** The summary a line holds; empty for anything else. */
    public static Optional<RankSummary> parse(String line) {
        JsonNode node;
        try {
            node = JSON.readTree(line);
        } catch (IOException e) {
            return Optional.empty();
        }
        if (node == null || !node.path("rank").isTextual()) {
            return Optional.empty();
        }
        Optional<List<IntervalSpeeds.Speed>> speeds = speeds(node.path("speeds"));
        List<Process> processes = new ArrayList<>();
        for (JsonNode process : node.path("processes")) {
            Optional<List<IntervalSpeeds.Speed>> its = speeds(process.path("speeds"));
            if (its.isEmpty() || !process.path("rank").canConvertToInt() || !process.path("gpu").canConvertToInt()) {
                return Optional.empty();
            }
            processes.add(new Process(process.path("rank").asInt(), process.path("pid").asLong(-1), process.path("gpu").asInt(),
                    process.path("nic").isTextual() ? process.path("nic").asText() : null, its.get()));
        }
        return speeds.map(pod -> new RankSummary(node.path("rank").asText(), node.path("host").asText(""), pod, processes));
    }

    /** An array of speeds; empty when it is none, or one of them is not a speed. */
    private static Optional<List<IntervalSpeeds.Speed>> speeds(JsonNode array) {
        if (!array.isArray()) {
            return Optional.empty();
        }
        List<IntervalSpeeds.Speed> speeds = new ArrayList<>();
        for (JsonNode speed : array) {
            if (!speed.path("median").isNumber() || !speed.path("collective").isTextual()) {
                return Optional.empty();
            }
            speeds.add(new IntervalSpeeds.Speed(new IntervalSpeeds.Key(speed.path("collective").asText(), speed.path("size").asText(""),
                    speed.path("comm").asText("")), speed.path("median").asDouble(), speed.path("p10").asDouble(),
                    speed.path("seconds").asDouble(), speed.path("records").asLong()));
        }
        return Optional.of(speeds);
    }
}
