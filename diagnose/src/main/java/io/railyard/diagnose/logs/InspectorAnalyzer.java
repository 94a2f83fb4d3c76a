package io.railyard.diagnose.logs;

import io.railyard.diagnose.inspector.InspectorRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * NCCL Inspector's JSON lines (format v4.0: one object per collective per communicator, {@code header},
 * {@code metadata}, {@code coll_perf} or {@code p2p_perf}), from one file or a directory of them: each collective and
 * message size's bus bandwidth, rank by rank, and the ranks that run below 80 % of the job's median. Memory is bounded:
 * the last {@value #KEPT} records of each rank, collective and size. A record pretty-printed over many lines, as
 * documentation and issues show them, is read as its one line.
 */
final class InspectorAnalyzer implements Analyzer {
    private static final String HEADER = InspectorRecord.START;
    private static final int HEAD_BYTES = 64 << 10;
    static final double SLOW = 0.8;
    private static final int KEPT = 64;
    private static final int MAX_KEYS = 20_000;
    /** A pretty-printed record longer than this is not one of Inspector's (a record is about 500 characters). */
    private static final int MAX_PRETTY = 16 << 10;
    private static final java.util.regex.Pattern PRETTY_START = java.util.regex.Pattern.compile("\\{\\s*\"header\"\\s*:");

    private record Key(String collective, long sizeBucket) {}

    private static final class Samples {
        final double[] values = new double[KEPT];
        long count;

        void add(double value) {
            values[(int) (count++ % KEPT)] = value;
        }

        double median() {
            return InspectorAnalyzer.median(Arrays.copyOf(values, (int) Math.min(count, KEPT)));
        }
    }

    private final Findings findings;
    private final Map<Key, Map<Integer, Samples>> byKey = new LinkedHashMap<>();
    private final Map<Integer, String> hosts = new HashMap<>();
    private final Map<Integer, Long> firstLines = new HashMap<>();
    private final Map<Integer, String> firstTexts = new HashMap<>();
    private final Set<String> communicators = new HashSet<>();
    private long hits;
    private int ranks;
    /** The pretty-printed record being gathered, its lines joined; null between records. */
    private StringBuilder pretty;
    private int prettyDepth;
    private long prettyLine;

    /** Whether the input's head holds an Inspector record: the analyzer runs only then (a paste of them starts with them). */
    static boolean startsWithRecords(java.io.InputStream input) throws IOException {
        byte[] bytes = new byte[HEAD_BYTES];
        input.mark(HEAD_BYTES);
        int read = input.readNBytes(bytes, 0, HEAD_BYTES);
        input.reset();
        return PRETTY_START.matcher(new String(bytes, 0, read, java.nio.charset.StandardCharsets.ISO_8859_1)).find();
    }

    InspectorAnalyzer(Findings findings) {
        this.findings = findings;
    }

    @Override
    public void accept(Line line) {
        if (pretty != null || line.firstNonBlank() == '{' && startsPretty(line.text().strip())) {
            gather(line);
            return;
        }
        int at = 0;
        while (at < line.length() && at < 8 && line.charAt(at) == ' ') {
            at++;
        }
        if (!line.startsWith(HEADER, at)) { // in place: most lines of a large log are not Inspector's, and cost nothing here
            return;
        }
        take(line.text(), line.number());
    }

    /** "{" alone, or "{ "header": {" with its braces open: a record's first line, pretty-printed. */
    private static boolean startsPretty(String text) {
        return (text.equals("{") || PRETTY_START.matcher(text).lookingAt()) && depth(text) > 0;
    }

    /** One line of a pretty-printed record: the record is read once its braces close; "{" and then no header is none. */
    private void gather(Line line) {
        String text = line.text().strip();
        if (pretty == null) {
            pretty = new StringBuilder();
            prettyDepth = 0;
            prettyLine = line.number();
        } else if (pretty.length() == 1 && !text.startsWith("\"header\"")) {
            pretty = null;
            accept(line);
            return;
        }
        pretty.append(text);
        prettyDepth += depth(text);
        if (prettyDepth <= 0 || pretty.length() > MAX_PRETTY) {
            String record = pretty.toString().replaceFirst("^\\{\\s*", "{");
            pretty = null;
            take(record, prettyLine);
        }
    }

    /** The braces a line opens less those it closes, outside JSON strings. */
    private static int depth(String text) {
        int depth = 0;
        boolean quoted = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quoted) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    quoted = false;
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == '{') {
                depth++;
            } else if (c == '}') {
                depth--;
            }
        }
        return depth;
    }

    private void take(String text, long number) {
        Optional<InspectorRecord> parsed = InspectorRecord.parse(text);
        if (parsed.isEmpty()) {
            return; // a line cut by the paste or by a file still being written
        }
        InspectorRecord record = parsed.get();
        hits++;
        int rank = record.rank();
        ranks = Math.max(ranks, record.ranks());
        communicators.add(record.communicator());
        hosts.putIfAbsent(rank, record.host());
        firstLines.putIfAbsent(rank, number);
        firstTexts.putIfAbsent(rank, text);
        Key key = new Key(record.operation(), record.sizeBucket());
        double busBw = record.busBandwidthGBps();
        if (!byKey.containsKey(key) && byKey.size() >= MAX_KEYS) {
            return;
        }
        byKey.computeIfAbsent(key, k -> new HashMap<>()).computeIfAbsent(rank, r -> new Samples()).add(busBw);
    }

    @Override
    public long hits() {
        return hits;
    }

    @Override
    public void finish(LogReport.Builder report) {
        if (hits == 0) {
            return;
        }
        List<InspectorSummary.Collective> collectives = new ArrayList<>();
        List<InspectorSummary.SlowRank> slow = new ArrayList<>();
        byKey.forEach((key, perRank) -> {
            Map<Integer, Double> medians = new HashMap<>();
            perRank.forEach((rank, samples) -> medians.put(rank, samples.median()));
            double job = median(medians.values().stream().mapToDouble(Double::doubleValue).toArray());
            long records = perRank.values().stream().mapToLong(s -> s.count).sum();
            collectives.add(new InspectorSummary.Collective(key.collective(), InspectorRecord.size(key.sizeBucket()), round(job), perRank.size(), records));
            if (medians.size() > 1 && job > 0) {
                medians.forEach((rank, median) -> {
                    if (median < SLOW * job) {
                        slow.add(new InspectorSummary.SlowRank(rank, hosts.get(rank), key.collective(), InspectorRecord.size(key.sizeBucket()), round(median),
                                round(100 * median / job)));
                    }
                });
            }
        });
        collectives.sort(Comparator.comparingLong(InspectorSummary.Collective::records).reversed());
        slow.sort(Comparator.comparingDouble(InspectorSummary.SlowRank::percent));
        report.inspector = new InspectorSummary(Math.max(ranks, hosts.size()), communicators.size(), hits, collectives, slow);
        slow.stream().map(InspectorSummary.SlowRank::rank).distinct().limit(8).forEach(rank -> {
            InspectorSummary.SlowRank worst = slow.stream().filter(s -> s.rank() == rank).findFirst().orElseThrow();
            findings.add("inspector-slow-rank", Severity.WARN, "rank " + rank + (worst.host() == null ? "" : " on " + worst.host()) + " runs "
                            + worst.collective() + " of " + worst.size() + " at " + worst.busBandwidthGBps() + " GB/s bus bandwidth, "
                            + worst.percent() + "% of the job's median",
                    "a slow rank holds every collective back: look at its node's NICs (railyard doctor; a port trained down, "
                            + "errors, congestion in port_xmit_wait) and at what else runs on its GPUs",
                    firstLines.get(rank), firstTexts.get(rank));
        });
    }

    private static double median(double[] values) {
        Arrays.sort(values);
        return values.length == 0 ? 0 : values.length % 2 == 1 ? values[values.length / 2]
                : (values[values.length / 2 - 1] + values[values.length / 2]) / 2;
    }

    private static double round(double value) {
        return Math.round(value * 10) / 10.0;
    }

}
