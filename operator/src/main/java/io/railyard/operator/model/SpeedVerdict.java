package io.railyard.operator.model;

import io.railyard.api.TrainingJobSpec;
import io.railyard.api.TrainingJobStatus;
import io.railyard.diagnose.inspector.InspectorRecord;
import io.railyard.diagnose.inspector.JobSpeedLine;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The Degraded condition decided on the first pod's nccl-speed line: ranks slow, the job below what its links measured
 * in preflight, or no Inspector data, for {@code windows} intervals in a row; not Degraded after as many good ones.
 * Between the two the line decides nothing and the condition stays as it is.
 */
public record SpeedVerdict(boolean degraded, String reason, String message, TrainingJobStatus.Performance performance) {
    /** Below this message size a collective is latency-bound and says nothing of the links' bandwidth. */
    static final long JOB_SLOW_FROM_BYTES = 64L << 20;

    /**
     * @param noDataCounts whether NCCL has run long enough (its network verified, and {@code windows} intervals since)
     *                     that no record means the plugin writes none
     */
    public static Optional<SpeedVerdict> of(JobSpeedLine line, TrainingJobSpec spec, TrainingJobStatus status, boolean noDataCounts) {
        int windows = InspectorSidecar.windows(spec);
        int slowPercent = InspectorSidecar.slowPercent(spec);
        Double expected = expectedGbps(status.preflight);
        if (line.noDataFor() >= windows) {
            return noDataCounts ? Optional.of(new SpeedVerdict(true, "NoData", "no NCCL Inspector record from any of the " + line.ranks()
                    + " pods for " + line.noDataFor() + " intervals: put the Inspector plugin (NCCL_PROFILER_PLUGIN="
                    + InspectorSidecar.plugin(spec) + ") in the image, with NCCL 2.30 or later", performance(line, expected, List.of()))) : Optional.empty();
        }
        if (line.busBandwidthGbps() == null) {
            return Optional.empty();
        }
        String figure = line.collective() + " " + line.size() + " bus bandwidth " + gbps(line.busBandwidthGbps()) + " GB/s";
        List<JobSpeedLine.SlowRank> slow = line.slow().stream().filter(rank -> rank.slowFor() >= windows).toList();
        if (!slow.isEmpty()) {
            List<TrainingJobStatus.SlowRank> named = named(slow, status);
            Map<String, List<String>> nics = nics(status.preflight);
            List<String> words = new ArrayList<>();
            for (TrainingJobStatus.SlowRank rank : named.subList(0, Math.min(8, named.size()))) {
                if (rank.globalRank != null) { // one process of the pod: its GPU and that GPU's NIC
                    words.add("rank " + rank.globalRank + " (GPU " + rank.gpu + (rank.nic == null ? "" : ", NIC " + rank.nic) + ") in pod "
                            + rank.pod + " on node " + rank.node + " at " + gbps(rank.percent) + "%");
                    continue;
                }
                List<String> its = rank.node == null ? List.of() : nics.getOrDefault(rank.node, List.of());
                words.add("rank " + rank.rank + " in pod " + rank.pod + " on node " + rank.node
                        + (its.isEmpty() ? "" : " (NICs " + String.join(", ", its) + ")") + " at " + gbps(rank.percent) + "%");
            }
            int more = line.slowRanks() - words.size();
            return Optional.of(new SpeedVerdict(true, "RanksSlow", String.join("; ", words) + (more > 0 ? " and " + more + " more" : "")
                    + " of the job's median " + figure + ", below " + slowPercent + "% for " + windows + " intervals in a row",
                    performance(line, expected, named)));
        }
        if (jobSlow(line, expected, slowPercent, windows)) {
            return Optional.of(new SpeedVerdict(true, "JobSlow", "the job's median " + figure + " has been below " + slowPercent + "% of the "
                    + gbps(expected) + " GB/s its links measured in preflight for " + windows + " intervals in a row (recent: "
                    + line.recentGbps().stream().map(SpeedVerdict::gbps).toList() + " GB/s): check the fabric's congestion and NCCL's tuning",
                    performance(line, expected, List.of())));
        }
        boolean belowPreflight = expected != null && bandwidthBound(line) && line.busBandwidthGbps() < expected * slowPercent / 100;
        if (line.goodFor() >= windows && !belowPreflight) {
            return Optional.of(new SpeedVerdict(false, "RanksEven", "every rank within " + slowPercent + "% of the job's median " + figure
                    + " for " + line.goodFor() + " intervals" + (expected == null ? "" : "; preflight measured " + gbps(expected) + " GB/s"),
                    performance(line, expected, List.of())));
        }
        return Optional.empty();
    }

    /** What the preflight links promise as bus bandwidth: the median node's HCAs' Gb/s, over 8. */
    public static Double expectedGbps(TrainingJobStatus.Preflight preflight) {
        if (preflight == null || preflight.links == null || preflight.links.isEmpty()) {
            return null;
        }
        Map<String, Map<String, Double>> byNode = new HashMap<>();
        for (TrainingJobStatus.PreflightLink link : preflight.links) {
            if (link.from != null && link.gbps != null) {
                byNode.computeIfAbsent(link.from, n -> new HashMap<>()).merge(link.hca == null ? "" : link.hca, link.gbps, Math::max);
            }
        }
        double[] perNode = byNode.values().stream().mapToDouble(hcas -> hcas.values().stream().mapToDouble(Double::doubleValue).sum() / 8)
                .sorted().toArray();
        return perNode.length == 0 ? null : Math.round(perNode[perNode.length / 2] * 100) / 100.0;
    }

    private static boolean jobSlow(JobSpeedLine line, Double expected, int slowPercent, int windows) {
        return expected != null && bandwidthBound(line) && line.recentGbps().size() >= windows
                && line.recentGbps().stream().allMatch(gbps -> gbps < expected * slowPercent / 100);
    }

    private static boolean bandwidthBound(JobSpeedLine line) {
        return line.size() != null && InspectorRecord.bytes(line.size()) >= JOB_SLOW_FROM_BYTES;
    }

    private static List<TrainingJobStatus.SlowRank> named(List<JobSpeedLine.SlowRank> slow, TrainingJobStatus status) {
        Map<String, TrainingJobStatus.Rank> ranks = new HashMap<>();
        if (status.ranks != null) {
            status.ranks.forEach(rank -> ranks.put(String.valueOf(rank.rank), rank));
        }
        List<TrainingJobStatus.SlowRank> named = new ArrayList<>();
        for (JobSpeedLine.SlowRank rank : slow) {
            TrainingJobStatus.SlowRank entry = new TrainingJobStatus.SlowRank();
            TrainingJobStatus.Rank known = ranks.get(rank.rank());
            entry.rank = known == null ? null : known.rank;
            entry.pod = known == null ? rank.host() : known.pod;
            entry.node = known == null ? null : known.node;
            entry.percent = rank.percent();
            entry.globalRank = rank.globalRank();
            entry.gpu = rank.gpu();
            entry.nic = rank.nic();
            named.add(entry);
        }
        return named;
    }

    /** Each node's HCAs as preflight tested them. */
    private static Map<String, List<String>> nics(TrainingJobStatus.Preflight preflight) {
        Map<String, TreeSet<String>> nics = new HashMap<>();
        if (preflight != null && preflight.links != null) {
            preflight.links.stream().filter(link -> link.from != null && link.hca != null)
                    .forEach(link -> nics.computeIfAbsent(link.from, n -> new TreeSet<>()).add(link.hca));
        }
        Map<String, List<String>> lists = new HashMap<>();
        nics.forEach((node, hcas) -> lists.put(node, List.copyOf(hcas)));
        return lists;
    }

    private static TrainingJobStatus.Performance performance(JobSpeedLine line, Double expected, List<TrainingJobStatus.SlowRank> slow) {
        TrainingJobStatus.Performance performance = new TrainingJobStatus.Performance();
        performance.busBandwidthGbps = line.busBandwidthGbps();
        performance.collective = line.collective();
        performance.size = line.size();
        performance.expectedGbps = expected;
        performance.slowRanks = slow.isEmpty() ? null : slow;
        return performance;
    }

    private static String gbps(double value) {
        return String.format(Locale.ROOT, value >= 100 ? "%.0f" : "%.1f", value);
    }
}
