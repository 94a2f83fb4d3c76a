package io.railyard.cli.speedup;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * A speed-up sweep judged: per pair RDMA beside TCP, the sweep's medians over the pairs measured both ways, and the
 * claims as lines that hold or not with their figures. A pair that could not run one path is shown with its reason and
 * left out of the ratios, never counted as 0.
 */
public final class SpeedupReport {
    /** The share of TCP's CPU per Gb/s that RDMA may use. */
    public static final double CPU_CLAIM_PERCENT = 10;
    /** "Several times faster". */
    public static final double SEVERAL_TIMES = 2;

    /** @param holds null when the claim could not be checked, with the reason in the line */
    public record Claim(String id, Boolean holds, String line) {}

    private final List<SpeedupPair> pairs;
    private final List<CollectiveRun> collectives;
    private final int measured;
    private final Double bandwidthRatio;
    private final Double latencyRatio;
    private final Double cpuSharePercent;
    /** Which ends the CPU share counts: both where every measured pair's tools reported both, else the sending end. */
    private final String cpuEnds;
    private final List<Claim> claims = new ArrayList<>();

    public SpeedupReport(List<SpeedupPair> pairs, List<CollectiveRun> collectives, int nodes) {
        this.pairs = List.copyOf(pairs);
        this.collectives = List.copyOf(collectives);
        List<SpeedupPair> both = pairs.stream().filter(SpeedupPair::bothMeasured).toList();
        measured = both.size();
        bandwidthRatio = median(both, p -> p.rdma().gbps() / p.tcp().gbps());
        latencyRatio = median(both, p -> p.rdma().latencyUs() == null || p.tcp().latencyUs() == null || p.rdma().latencyUs() == 0 ? null
                : p.tcp().latencyUs() / p.rdma().latencyUs());
        boolean bothEnds = !both.isEmpty() && both.stream().allMatch(p -> p.rdma().bothEndsCores() != null && p.tcp().bothEndsCores() != null);
        cpuEnds = bothEnds ? "both ends" : "the sending end";
        cpuSharePercent = median(both, p -> share(bothEnds ? p.rdma().coresPerGbps(p.rdma().bothEndsCores()) : p.rdma().coresPerGbps(p.rdma().senderCores()),
                bothEnds ? p.tcp().coresPerGbps(p.tcp().bothEndsCores()) : p.tcp().coresPerGbps(p.tcp().senderCores())));
        judgePairs();
        CollectiveRun.judge(collectives, nodes, claims);
    }

    private void judgePairs() {
        String over = "median of " + measured + " pair" + (measured == 1 ? "" : "s");
        if (measured == 0) {
            claims.add(new Claim("cpu", null, "not checked: no pair was measured over both RDMA and TCP"));
            claims.add(new Claim("bandwidth", null, "not checked: no pair was measured over both RDMA and TCP"));
            return;
        }
        claims.add(cpuSharePercent == null
                ? new Claim("cpu", null, "not checked: the tools reported no CPU figure at " + cpuEnds)
                : new Claim("cpu", cpuSharePercent < CPU_CLAIM_PERCENT, String.format(Locale.ROOT,
                        "RDMA CPU per Gb/s is %s%% of TCP's, %s (%s; claim: < %s%%)", figure(cpuSharePercent), cpuEnds, over,
                        figure(CPU_CLAIM_PERCENT))));
        claims.add(new Claim("bandwidth", bandwidthRatio >= SEVERAL_TIMES, String.format(Locale.ROOT,
                "RDMA moves %s× TCP's bandwidth between the same nodes (%s; claim: several times, ≥ %s×)", figure(bandwidthRatio), over,
                figure(SEVERAL_TIMES))));
    }

    public List<SpeedupPair> pairs() {
        return pairs;
    }

    public List<CollectiveRun> collectives() {
        return collectives;
    }

    /** How many pairs were measured over both RDMA and TCP. */
    public int measured() {
        return measured;
    }

    public List<Claim> claims() {
        return List.copyOf(claims);
    }

    /** Every claim that could be checked holds, and at least one was checked. */
    public boolean passed() {
        return claims.stream().anyMatch(c -> c.holds() != null) && claims.stream().noneMatch(c -> Boolean.FALSE.equals(c.holds()));
    }

    public String text() {
        StringBuilder text = new StringBuilder();
        text.append("speedup: ").append(pairs.size()).append(" pair(s), ").append(measured).append(" measured over both RDMA and TCP\n");
        for (SpeedupPair pair : pairs) {
            text.append("pair ").append(pair.client()).append(" -> ").append(pair.server()).append('\n');
            text.append(path("RDMA", pair.rdma())).append(path("TCP ", pair.tcp()));
            if (pair.bothMeasured()) {
                text.append("  RDMA/TCP: bandwidth ").append(figure(pair.rdma().gbps() / pair.tcp().gbps())).append('×');
                if (pair.rdma().latencyUs() != null && pair.tcp().latencyUs() != null && pair.rdma().latencyUs() > 0) {
                    text.append(", latency ").append(figure(pair.tcp().latencyUs() / pair.rdma().latencyUs())).append("× lower");
                }
                Double share = share(pair.rdma().coresPerGbps(pair.rdma().senderCores()), pair.tcp().coresPerGbps(pair.tcp().senderCores()));
                if (share != null) {
                    text.append(", CPU per Gb/s sending ").append(figure(share)).append("% of TCP's");
                }
                text.append('\n');
            } else {
                text.append("  left out of the ratios\n");
            }
        }
        if (measured > 0) {
            text.append("sweep (median of ").append(measured).append(measured == 1 ? " pair" : " pairs").append("): bandwidth RDMA/TCP ").append(figure(bandwidthRatio)).append('×');
            if (latencyRatio != null) {
                text.append(", latency ").append(figure(latencyRatio)).append("× lower");
            }
            if (cpuSharePercent != null) {
                text.append(", CPU per Gb/s ").append(figure(cpuSharePercent)).append("% of TCP's (").append(cpuEnds).append(')');
            }
            text.append('\n');
        }
        CollectiveRun sockets = CollectiveRun.find(collectives, CollectiveRun.Variant.SOCKETS);
        collectives.forEach(run -> text.append(run.text(sockets)));
        text.append("claims:\n");
        claims.forEach(claim -> text.append("  ").append(claim.holds() == null ? "----" : claim.holds() ? "PASS" : "FAIL").append("  ")
                .append(claim.line()).append('\n'));
        return text.toString();
    }

    private static String path(String name, SpeedupPair.Path path) {
        if (path.error() != null) {
            return "  " + name + "  " + path.error() + "\n";
        }
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %s  %.2f Gb/s", name, path.gbps()));
        if (path.latencyUs() != null) {
            line.append(String.format(Locale.ROOT, ", latency %.2f µs", path.latencyUs()));
        }
        if (path.senderCores() != null || path.receiverCores() != null) {
            line.append(", CPU per 100 Gb/s ").append(per100(path, path.senderCores())).append(" cores sending, ")
                    .append(per100(path, path.receiverCores())).append(" receiving");
        }
        if (path.retransmits() != null) {
            line.append(", ").append(path.retransmits()).append(" retransmits");
        }
        return line.append('\n').toString();
    }

    private static String per100(SpeedupPair.Path path, Double cores) {
        Double perGbps = path.coresPerGbps(cores);
        return perGbps == null ? "?" : String.format(Locale.ROOT, "%.3f", perGbps * 100);
    }

    public Map<String, Object> json() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("passed", passed());
        json.put("pairs", pairs.stream().map(pair -> {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("client", pair.client());
            entry.put("server", pair.server());
            entry.put("rdma", pair.rdma());
            entry.put("tcp", pair.tcp());
            entry.put("bandwidthRatio", pair.bothMeasured() ? SpeedupPair.round(pair.rdma().gbps() / pair.tcp().gbps()) : null);
            return entry;
        }).toList());
        Map<String, Object> sweep = new LinkedHashMap<>();
        sweep.put("pairsMeasured", measured);
        sweep.put("bandwidthRatio", bandwidthRatio);
        sweep.put("latencyRatio", latencyRatio);
        sweep.put("cpuSharePercent", cpuSharePercent);
        sweep.put("cpuEnds", cpuEnds);
        json.put("sweep", sweep);
        json.put("collectives", collectives.stream().map(CollectiveRun::json).toList());
        json.put("claims", claims);
        return json;
    }

    /** RDMA's CPU per Gb/s as a percentage of TCP's. */
    private static Double share(Double rdma, Double tcp) {
        return rdma == null || tcp == null || tcp == 0 ? null : rdma / tcp * 100;
    }

    private static Double median(List<SpeedupPair> pairs, Function<SpeedupPair, Double> figure) {
        List<Double> values = pairs.stream().map(figure).filter(Objects::nonNull).sorted().toList();
        if (values.isEmpty()) {
            return null;
        }
        int middle = values.size() / 2;
        return SpeedupPair.round(values.size() % 2 == 1 ? values.get(middle) : (values.get(middle - 1) + values.get(middle)) / 2);
    }

    /** Two significant decimals at most, trailing zeros dropped: 4.4, 12, 0.12. */
    public static String figure(double value) {
        String text = String.format(Locale.ROOT, value >= 10 ? "%.1f" : "%.2f", value);
        return text.contains(".") ? text.replaceAll("0+$", "").replaceAll("\\.$", "") : text;
    }
}
