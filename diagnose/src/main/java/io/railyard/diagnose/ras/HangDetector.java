package io.railyard.diagnose.ras;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Decides from successive RAS reports whether a job progresses. RAS counts launches, not completions, so one report's
 * differing counts are normal jitter: a rank is lagging only when it stays at the same count across two polls while
 * the others' count moved on, and the job is stalled when no count moved for {@code stallAfter} while a rank is
 * behind. Behind means below the operation's highest count, whichever group the report chose to detail. A process the
 * report lists as not answering or dead, or a communicator's missing rank, is missing at once, before any stall.
 * Holds one summary of the previous poll, nothing else.
 */
public final class HangDetector {
    public enum State { HEALTHY, LAGGING, STALLED, MISSING, UNAVAILABLE }

    /** A rank (or, with rank -1, a process the report gives no rank, or an unnamed group) the verdict is about; pid and GPU -1 when unknown. */
    public record Suspect(int rank, String host, long pid, int cudaDev, String reason) {}

    public record Verdict(State state, String ncclVersion, int communicators, List<Suspect> ranks, String message) {}

    /** A group below its operation's highest count: its communicator and operation, count and the ranks it names. */
    private record Mark(String operation, long count, String ranks) {}

    private final Duration stallAfter;
    private Set<Mark> behindBefore = Set.of();
    private Map<String, Long> highestBefore = Map.of();
    private String countsBefore;
    private Instant unchangedSince;

    public HangDetector(Duration stallAfter) {
        this.stallAfter = stallAfter;
    }

    public Verdict unavailable(String why) {
        return new Verdict(State.UNAVAILABLE, null, 0, List.of(), why);
    }

    public Verdict observe(RasReport report, Instant now) {
        List<Suspect> missing = new ArrayList<>();
        report.dead().forEach(r -> missing.add(suspect(r, "considered dead (unreachable via the RAS network)")));
        report.unresponsive().stream().filter(r -> report.dead().stream().noneMatch(d -> d.pid() == r.pid()))
                .forEach(r -> missing.add(suspect(r, "did not answer RAS")));
        List<Suspect> behind = new ArrayList<>();
        List<Suspect> lagging = new ArrayList<>();
        Set<Mark> behindNow = new HashSet<>();
        Map<String, Long> highestNow = new HashMap<>();
        StringBuilder counts = new StringBuilder();
        List<Suspect> processes = List.copyOf(missing);
        for (RasReport.Communicator comm : report.communicators()) {
            comm.missing().stream().filter(r -> processes.stream().noneMatch(p -> same(p, r)))
                    .forEach(r -> missing.add(suspect(r, "missing from communicator " + comm.id())));
            comm.operations().forEach((op, groups) -> counts.append(comm.id()).append('/').append(op)
                    .append(groups.stream().map(g -> g.count() + "x" + g.size()).toList()));
        }
        for (RasReport.Behind laggard : report.behind()) {
            RasReport.Launched group = laggard.group();
            String key = laggard.communicator() + "/" + laggard.operation();
            highestNow.put(key, laggard.highest());
            Mark mark = new Mark(key, group.count(), group.named().stream().map(r -> String.valueOf(r.rank())).collect(Collectors.joining(",")));
            behindNow.add(mark);
            String reason = laggard.operation() + " launched up to " + group.count() + " while other ranks are at " + laggard.highest();
            List<Suspect> these = group.named().isEmpty()
                    ? List.of(new Suspect(-1, null, -1, -1, group.size() + " ranks (not named by the report): " + reason))
                    : group.named().stream().map(r -> suspect(r, reason)).toList();
            behind.addAll(these);
            boolean othersMoved = laggard.highest() > highestBefore.getOrDefault(key, Long.MAX_VALUE);
            if (behindBefore.contains(mark) && othersMoved) {
                lagging.addAll(these);
            }
        }
        String countsNow = counts.toString();
        if (!countsNow.equals(countsBefore)) {
            unchangedSince = now;
        }
        countsBefore = countsNow;
        behindBefore = behindNow;
        highestBefore = highestNow;
        Duration frozen = Duration.between(unchangedSince, now);
        String version = report.ncclVersion();
        int communicators = report.communicators().size();
        if (!missing.isEmpty()) { // said as soon as the report says it, however long the counts were still: it names the process
            return new Verdict(State.MISSING, version, communicators, missing, describe(missing));
        }
        if (!behind.isEmpty() && frozen.compareTo(stallAfter) >= 0) {
            return new Verdict(State.STALLED, version, communicators, behind, "no collective count moved for " + frozen.toSeconds()
                    + " s: " + describe(behind));
        }
        if (!lagging.isEmpty()) {
            return new Verdict(State.LAGGING, version, communicators, lagging, describe(lagging));
        }
        return new Verdict(State.HEALTHY, version, communicators, List.of(), communicators + " communicators progressing");
    }

    private static Suspect suspect(RasReport.Rank rank, String reason) {
        return new Suspect(rank.rank(), rank.host(), rank.pid(), rank.cudaDev(), reason);
    }

    /** Whether a communicator's missing rank is a process already named: the same process, or the rank given to it. */
    private static boolean same(Suspect process, RasReport.Rank rank) {
        return rank.pid() >= 0 ? rank.pid() == process.pid() : rank.rank() >= 0 && rank.rank() == process.rank();
    }

    private static String describe(List<Suspect> suspects) {
        return suspects.stream().limit(8).map(HangDetector::describe)
                .collect(Collectors.joining("; ")) + (suspects.size() > 8 ? "; and " + (suspects.size() - 8) + " more" : "");
    }

    /** A rank by its number and host; without a number, its process, host and GPU; an unnamed group by its reason. */
    private static String describe(Suspect s) {
        return s.rank() < 0 && s.pid() < 0 ? s.reason() : new RasReport.Rank(s.rank(), s.host(), s.pid(), s.cudaDev()).describe() + ": " + s.reason();
    }
}
