package io.railyard.diagnose.inspector;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;

/**
 * The job's interval, as the first pod's nccl-speed sidecar logs it, one JSON line each: the job's median bus
 * bandwidth of the collective that took the most time (and of the next ones), each rank below {@code slowPercent} of it
 * with how many intervals in a row it has been, and the streaks the operator's Degraded condition is decided on.
 *
 * @param interval    the sidecar's count of intervals
 * @param ranks       the pods the job has
 * @param reporting   the pods whose summary this interval holds
 * @param records     Inspector records behind the figures
 * @param busBandwidthGbps the job's median of the ranks' medians, of {@code collective}, {@code size} and {@code comm}; null without records
 * @param slowRanks   how many ranks are slow ({@code slow} names the slowest {@value JobSpeeds#NAMED})
 * @param noDataFor   intervals in a row without one record from any rank
 * @param goodFor     intervals in a row with records and no slow rank
 * @param recentGbps  the job's median of the last {@code windows} intervals with records, oldest first
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobSpeedLine(long interval, int ranks, int reporting, long records, String collective, String size, String comm,
        Double busBandwidthGbps, int slowPercent, int windows, List<Median> medians, List<SlowRank> slow, int slowRanks,
        int noDataFor, int goodFor, List<Double> recentGbps) {
    private static final ObjectMapper JSON = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    /** One collective, size and communicator: the median of the ranks' medians, and how many ranks ran it. */
    public record Median(String collective, String size, String comm, double busBandwidthGbps, int ranks) {}

    /**
     * A rank below the job's median, by its share of it (percent): a pod's process where the pod's sidecar kept them
     * apart, with its global rank, GPU and that GPU's NIC; else the pod as a whole.
     *
     * @param rank the pod's node rank
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SlowRank(String rank, String host, double percent, int slowFor, Integer globalRank, Integer gpu, String nic) {
        public SlowRank(String rank, String host, double percent, int slowFor) {
            this(rank, host, percent, slowFor, null, null, null);
        }
    }

    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The last line of a log that is one; empty when there is none yet (a line cut by the log's tail is skipped). */
    public static Optional<JobSpeedLine> last(String log) {
        String[] lines = log.split("\r?\n");
        for (int i = lines.length - 1; i >= 0; i--) {
            if (lines[i].startsWith("{\"interval\"")) {
                try {
                    return Optional.of(JSON.readValue(lines[i], JobSpeedLine.class));
                } catch (IOException e) {
                    // cut short: an older line may be whole
                }
            }
        }
        return Optional.empty();
    }
}
