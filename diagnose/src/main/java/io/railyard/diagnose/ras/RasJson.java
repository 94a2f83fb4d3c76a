package io.railyard.diagnose.ras;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/** NCCL RAS's JSON status report (2.28.7+), repaired where 2.28.7 and 2.28.9 leave out a comma. */
public final class RasJson {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** 2.28.7 and 2.28.9 write no comma after a missing rank's "nvml_dev" (fixed in 2.29.2). */
    private static final Pattern MISSING_COMMA = Pattern.compile("(\"nvml_dev\"\\s*:\\s*-?\\d+)(\\s*\")");

    private RasJson() {}

    /** Whether a text is a JSON report rather than the text one. */
    public static boolean looksLikeJson(String text) {
        return text.stripLeading().startsWith("{");
    }

    public static RasReport parse(String text) {
        JsonNode root;
        try {
            root = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            try {
                root = JSON.readTree(MISSING_COMMA.matcher(text).replaceAll("$1,$2"));
            } catch (JsonProcessingException again) {
                throw new IllegalArgumentException("not a RAS JSON report: " + again.getOriginalMessage());
            }
        }
        List<RasReport.Communicator> communicators = new ArrayList<>();
        for (JsonNode comm : root.path("communicators")) {
            Map<String, Map<Long, List<RasReport.Rank>>> byOperation = new LinkedHashMap<>();
            for (JsonNode rank : comm.path("ranks")) {
                RasReport.Rank who = rank(rank);
                rank.path("collective_counts").properties().forEach(count -> byOperation
                        .computeIfAbsent(count.getKey(), op -> new TreeMap<>())
                        .computeIfAbsent(count.getValue().asLong(), c -> new ArrayList<>()).add(who));
            }
            Map<String, List<RasReport.Launched>> operations = new LinkedHashMap<>();
            byOperation.forEach((op, groups) -> operations.put(op, groups.entrySet().stream()
                    .map(group -> new RasReport.Launched(group.getKey(), group.getValue().size(), List.copyOf(group.getValue()))).toList()));
            List<RasReport.Rank> missing = new ArrayList<>();
            comm.path("missing_ranks").forEach(rank -> missing.add(rank(rank)));
            communicators.add(new RasReport.Communicator(comm.path("hash").asText("").replaceFirst("^0x", ""),
                    comm.path("size").asInt(comm.path("ranks").size() + missing.size()), operations, missing));
        }
        return new RasReport(root.path("nccl_version").asText(null), communicators, List.of(), List.of(), deadRanks(root));
    }

    private static List<RasReport.Rank> deadRanks(JsonNode root) {
        List<RasReport.Rank> dead = new ArrayList<>();
        for (JsonNode comm : root.path("communicators")) {
            for (JsonNode rank : comm.path("missing_ranks")) {
                if (rank.path("status").path("considered_dead").asBoolean(false)) {
                    dead.add(rank(rank));
                }
            }
        }
        return dead;
    }

    private static RasReport.Rank rank(JsonNode rank) {
        String host = rank.path("host").asText("unknown");
        return new RasReport.Rank(rank.path("rank").asInt(-1), host.equals("unknown") ? null : host, rank.path("pid").asLong(-1),
                rank.path("cuda_dev").asInt(-1));
    }
}
