package io.railyard.diagnose.logs;

import java.util.List;

/**
 * What NCCL Inspector's JSON lines say of a job: its ranks and communicators, each collective and message size's median
 * bus bandwidth over the ranks, and the ranks below 80 % of it with their hosts.
 */
public record InspectorSummary(int ranks, int communicators, long records, List<Collective> collectives, List<SlowRank> slowRanks) {

    /** @param size the message size's bucket ({@code 1 GiB}: sizes from it to twice it) */
    public record Collective(String collective, String size, double busBandwidthGBps, int ranks, long records) {}

    /** @param percent the rank's median as a share of the job's, for that collective and size */
    public record SlowRank(int rank, String host, String collective, String size, double busBandwidthGBps, double percent) {}

    public InspectorSummary {
        collectives = List.copyOf(collectives);
        slowRanks = List.copyOf(slowRanks);
    }
}
