package io.railyard.diagnose.inspector;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The job's speeds, gathered in its first pod from every rank's interval summary. Each interval is judged on the
 * collective that took the ranks the most time: the job's median is the median of the ranks' medians, and a rank below
 * {@code slowPercent} of it is slow: each process of a pod on its own where the pod's sidecar kept them apart (one slow
 * GPU among eight is lost in its pod's median), else the pod. Keeps the streaks (slow ranks, no data, good intervals)
 * that a reader of one line needs to decide on {@code windows} intervals in a row.
 */
public final class JobSpeeds {
    /** Slow ranks a line names; the rest are counted. */
    static final int NAMED = 64;
    /** Collectives a line gives the job's median of. */
    static final int MEDIANS = 16;

    private record Received(RankSummary summary, Instant at) {}

    private final int ranks;
    private final int slowPercent;
    private final int windows;
    private final Duration keep;
    private final Map<String, Received> latest = new HashMap<>();
    private final Map<String, Integer> slowFor = new HashMap<>();
    private final ArrayDeque<Double> recent = new ArrayDeque<>();
    private long intervals;
    private int noDataFor;
    private int goodFor;

    /** @param interval how often each rank sends: a summary older than one and a half of it is left out */
    public JobSpeeds(int ranks, int slowPercent, int windows, Duration interval) {
        this.ranks = ranks;
        this.slowPercent = slowPercent;
        this.windows = windows;
        this.keep = interval.multipliedBy(3).dividedBy(2);
    }

    /** A rank's latest summary; it replaces the rank's earlier one. */
    public synchronized void add(RankSummary summary, Instant at) {
        latest.put(summary.rank(), new Received(summary, at));
    }

    /** The job's interval that ends now. */
    public synchronized JobSpeedLine close(Instant now) {
        intervals++;
        latest.values().removeIf(received -> received.at().isBefore(now.minus(keep)));
        Map<IntervalSpeeds.Key, Double> time = new HashMap<>();
        Map<IntervalSpeeds.Key, List<Double>> byRank = new HashMap<>();
        long records = 0;
        for (Received received : latest.values()) {
            for (IntervalSpeeds.Speed speed : received.summary().speeds()) {
                time.merge(speed.key(), speed.medianSeconds() * speed.records(), Double::sum);
                byRank.computeIfAbsent(speed.key(), k -> new ArrayList<>()).add(speed.medianGBps());
                records += speed.records();
            }
        }
        if (records == 0) {
            noDataFor++;
            goodFor = 0;
            slowFor.clear();
            return new JobSpeedLine(intervals, ranks, latest.size(), 0, null, null, null, null, slowPercent, windows, List.of(), List.of(), 0,
                    noDataFor, 0, List.copyOf(recent));
        }
        noDataFor = 0;
        List<IntervalSpeeds.Key> keys = time.keySet().stream()
                .sorted(Comparator.comparingDouble((IntervalSpeeds.Key key) -> time.get(key)).reversed()).toList();
        IntervalSpeeds.Key primary = keys.getFirst();
        double jobMedian = median(byRank.get(primary));
        List<JobSpeedLine.SlowRank> slow = slowRanks(primary, jobMedian);
        goodFor = slow.isEmpty() ? goodFor + 1 : 0;
        recent.addLast(round(jobMedian));
        while (recent.size() > windows) {
            recent.removeFirst();
        }
        List<JobSpeedLine.Median> medians = keys.stream().limit(MEDIANS).map(key -> new JobSpeedLine.Median(key.operation(), key.size(),
                key.communicator(), round(median(byRank.get(key))), byRank.get(key).size())).toList();
        return new JobSpeedLine(intervals, ranks, latest.size(), records, primary.operation(), primary.size(), primary.communicator(),
                round(jobMedian), slowPercent, windows, medians, slow.stream().limit(NAMED).toList(), slow.size(), 0, goodFor, List.copyOf(recent));
    }

    /** Each rank below the share of the job's median, slowest first; the streaks of the others end. */
    private List<JobSpeedLine.SlowRank> slowRanks(IntervalSpeeds.Key primary, double jobMedian) {
        List<JobSpeedLine.SlowRank> slow = new ArrayList<>();
        Map<String, Integer> stillSlow = new HashMap<>();
        for (Received received : latest.values()) {
            RankSummary pod = received.summary();
            boolean apart = pod.processes().stream().anyMatch(process -> process.speeds().stream().anyMatch(s -> s.key().equals(primary)));
            if (apart) {
                for (RankSummary.Process process : pod.processes()) {
                    speedOf(process.speeds(), primary).filter(gbps -> percent(gbps, jobMedian) < slowPercent).ifPresent(gbps -> {
                        int streak = slowFor.getOrDefault(pod.rank() + "/" + process.rank(), 0) + 1;
                        stillSlow.put(pod.rank() + "/" + process.rank(), streak);
                        slow.add(new JobSpeedLine.SlowRank(pod.rank(), pod.host(), percent(gbps, jobMedian), streak, process.rank(),
                                process.gpu(), process.nic()));
                    });
                }
            } else {
                speedOf(pod.speeds(), primary).filter(gbps -> percent(gbps, jobMedian) < slowPercent).ifPresent(gbps -> {
                    int streak = slowFor.getOrDefault(pod.rank(), 0) + 1;
                    stillSlow.put(pod.rank(), streak);
                    slow.add(new JobSpeedLine.SlowRank(pod.rank(), pod.host(), percent(gbps, jobMedian), streak));
                });
            }
        }
        slowFor.clear();
        slowFor.putAll(stillSlow);
        slow.sort(Comparator.comparingDouble(JobSpeedLine.SlowRank::percent));
        return slow;
    }

    private static java.util.Optional<Double> speedOf(List<IntervalSpeeds.Speed> speeds, IntervalSpeeds.Key key) {
        return speeds.stream().filter(speed -> speed.key().equals(key)).map(IntervalSpeeds.Speed::medianGBps).findFirst();
    }

    /** A speed's share of the job's median, one decimal. */
    private static double percent(double gbps, double jobMedian) {
        return Math.round((jobMedian > 0 ? 100 * gbps / jobMedian : 100) * 10) / 10.0;
    }

    private static double median(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return IntervalSpeeds.quantile(sorted, 0.5);
    }

    private static double round(double gbps) {
        return Math.round(gbps * 100) / 100.0;
    }
}
