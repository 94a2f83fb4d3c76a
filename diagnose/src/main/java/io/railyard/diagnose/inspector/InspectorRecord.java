package io.railyard.diagnose.inspector;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * One line of NCCL Inspector's JSON output (format v4.0): a collective ({@code coll_perf}) or a point-to-point transfer
 * ({@code p2p_perf}) of one rank in one communicator, with its message size, time and bus bandwidth (GB/s), and the
 * process that wrote it ({@code metadata.pid}, -1 where the record has none).
 */
public record InspectorRecord(String communicator, String communicatorName, int rank, int ranks, String host, long pid, String operation,
        long bytes, double execMicros, double busBandwidthGBps) {
    /** How every record line starts. */
    public static final String START = "{\"header\"";

    /** Made on the first record: starting Jackson costs a tenth of a second that inputs without records must not pay. */
    private static final class Json {
        static final ObjectMapper MAPPER = new ObjectMapper();
    }

    /** The record a line holds; empty for a line that is none, or one cut short. */
    public static Optional<InspectorRecord> parse(String line) {
        String text = line.strip();
        if (!text.startsWith(START) || !text.contains("_perf\"")) {
            return Optional.empty();
        }
        JsonNode record;
        try {
            record = Json.MAPPER.readTree(text);
        } catch (IOException e) {
            return Optional.empty();
        }
        JsonNode header = record.path("header");
        boolean collective = record.has("coll_perf");
        JsonNode perf = collective ? record.path("coll_perf") : record.path("p2p_perf");
        double busBw = perf.path(collective ? "coll_busbw_gbs" : "p2p_busbw_gbs").asDouble(Double.NaN);
        if (!header.has("rank") || perf.isMissingNode() || Double.isNaN(busBw)) {
            return Optional.empty();
        }
        return Optional.of(new InspectorRecord(header.path("id").asText(""), header.path("comm_name").asText(null), header.path("rank").asInt(),
                header.path("n_ranks").asInt(0), record.path("metadata").path("hostname").asText(null), record.path("metadata").path("pid").asLong(-1),
                collective ? perf.path("coll").asText("?") : perf.path("p2p").asText("P2P"),
                perf.path(collective ? "coll_msg_size_bytes" : "p2p_msg_size_bytes").asLong(0),
                perf.path(collective ? "coll_exec_time_us" : "p2p_exec_time_us").asDouble(0), busBw));
    }

    /** The message size's bucket: the power of two at or below it. */
    public long sizeBucket() {
        return Long.highestOneBit(Math.max(1, bytes));
    }

    /** A size bucket as people say it: 1 GiB, 64 MiB, 512 KiB. */
    public static String size(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int unit = 0;
        long value = bytes;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return value + " " + units[unit];
    }

    /** The bytes a bucket {@link #size(long)} wrote stands for; 0 for anything else. */
    public static long bytes(String size) {
        String[] parts = size.strip().split(" ");
        List<String> units = List.of("B", "KiB", "MiB", "GiB", "TiB");
        if (parts.length != 2 || !units.contains(parts[1]) || !parts[0].matches("\\d{1,7}")) {
            return 0;
        }
        return Long.parseLong(parts[0]) << (10 * units.indexOf(parts[1]));
    }
}
