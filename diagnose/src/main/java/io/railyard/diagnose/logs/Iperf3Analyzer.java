package io.railyard.diagnose.logs;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * iperf3's output, text or JSON ({@code -J}, which cJSON prints one key a line): the totals of the test, the
 * retransmissions, both ends' CPU use and its errors. Lines are read one at a time, so a cut paste keeps what it holds.
 */
final class Iperf3Analyzer implements Analyzer {
    /** {@code [SUM]   0.00-2.00   sec  5.09 GBytes  21.9 Gbits/sec    6             sender}, or a stream's {@code [  5]}. */
    private static final Pattern TOTAL = Pattern.compile(
            "\\[\\s*(SUM|\\d+)]\\s+[\\d.]+-\\s*[\\d.]+\\s+sec\\s+[\\d.]+\\s+[KMGT]?Bytes\\s+([\\d.]+)\\s+([KMGT]?)bits/sec(?:\\s+(\\d+))?.*?\\b(sender|receiver)\\s*$");
    private static final Pattern INTERVAL = Pattern.compile("\\[\\s*(SUM|\\d+)]\\s+[\\d.]+-\\s*[\\d.]+\\s+sec\\s+[\\d.]+\\s+[KMGT]?Bytes\\s+[\\d.]+\\s+[KMGT]?bits/sec");
    private static final Pattern CPU_LINE = Pattern.compile(
            "CPU Utilization: local/(sender|receiver) ([\\d.]+)% .*remote/(?:sender|receiver) ([\\d.]+)%");
    private static final Pattern STREAMS = Pattern.compile("protocol: TCP, (\\d+) streams?");
    private static final Pattern JSON_NUMBER = Pattern.compile("\"(\\w+)\":\\s*(-?[\\d.]+(?:[eE][-+]?\\d+)?)");
    private static final Pattern JSON_ERROR = Pattern.compile("\"error\":\\s*\"([^\"]*)\"");
    private static final Pattern JSON_SENDER = Pattern.compile("\"sender\":\\s*(true|false)");
    private static final Line.Words MARKERS = Line.Words.of(List.of("bits/sec", "iperf", "CPU Utilization", "Connecting to host",
            "\"sum_sent\"", "\"sum_received\"", "\"cpu_utilization_percent\"", "\"bits_per_second\"", "\"retransmits\"",
            "\"host_total\"", "\"remote_total\"", "\"num_streams\"", "\"error\"", "\"sender\"", "protocol: TCP"));
    private static final String CONNECT_REMEDY = "start the server first (iperf3 -s) on that port, and check that no firewall or"
            + " NetworkPolicy drops it: iperf3's control connection and its streams use the same port";

    private enum Section { NONE, SENT, RECEIVED, CPU }

    private final Findings findings;
    private long hits;
    private Section section = Section.NONE;
    private boolean jsonSeen;
    private Double sentGbps;
    private Double receivedGbps;
    private double streamSentGbps;
    private double streamReceivedGbps;
    private boolean streamTotals;
    private boolean sumTotals;
    private Long retransmits;
    private long streamRetransmits;
    private Double localCpu;
    private Double remoteCpu;
    private Integer streams;
    private Boolean sender;

    Iperf3Analyzer(Findings findings) {
        this.findings = findings;
    }

    @Override
    public Interest interest() {
        return Interest.words(MARKERS.words());
    }

    @Override
    public void accept(Line line) {
        if (!line.containsAny(MARKERS)) {
            return;
        }
        String text = line.text();
        if (text.indexOf('"') >= 0 && json(line, text)) {
            return;
        }
        Matcher total = TOTAL.matcher(text);
        if (total.find()) {
            hits++;
            double gbps = gbps(Double.parseDouble(total.group(2)), total.group(3));
            boolean sum = total.group(1).equals("SUM");
            boolean sent = total.group(5).equals("sender");
            if (sum) {
                sumTotals = true;
                if (sent) {
                    sentGbps = gbps;
                    retransmits = total.group(4) == null ? retransmits : Long.valueOf(total.group(4));
                } else {
                    receivedGbps = gbps;
                }
            } else {
                streamTotals = true;
                if (sent) {
                    streamSentGbps += gbps;
                    streamRetransmits += total.group(4) == null ? 0 : Long.parseLong(total.group(4));
                } else {
                    streamReceivedGbps += gbps;
                }
            }
            return;
        }
        Matcher cpu = CPU_LINE.matcher(text);
        if (cpu.find()) {
            hits++;
            sender = cpu.group(1).equals("sender");
            localCpu = Double.valueOf(cpu.group(2));
            remoteCpu = Double.valueOf(cpu.group(3));
            return;
        }
        Matcher count = STREAMS.matcher(text);
        if (count.find()) {
            hits++;
            streams = Integer.valueOf(count.group(1));
            return;
        }
        int error = text.indexOf("iperf3: error - ");
        if (error >= 0) {
            hits++;
            error(text.substring(error + "iperf3: error - ".length()).strip(), line);
        } else if (text.contains("Connecting to host") || text.contains("iperf Done.") || text.contains("Server listening on")
                || INTERVAL.matcher(text).find()) {
            hits++;
        }
    }

    /** One line of {@code -J}: a section's start, or one of the figures in it. */
    private boolean json(Line line, String text) {
        if (text.contains("\"sum_sent\"")) {
            section = Section.SENT;
        } else if (text.contains("\"sum_received\"")) {
            section = Section.RECEIVED;
        } else if (text.contains("\"cpu_utilization_percent\"")) {
            section = Section.CPU;
        } else if (text.contains("\"version\":") && text.contains("\"iperf 3")) {
            hits++;
            jsonSeen = true;
        } else {
            Matcher error = JSON_ERROR.matcher(text);
            if (error.find()) {
                if (!jsonSeen) {
                    return false; // another program's JSON
                }
                hits++;
                error(error.group(1), line);
                return true;
            }
            Matcher flag = JSON_SENDER.matcher(text);
            if (flag.find()) {
                if (section == Section.SENT || section == Section.RECEIVED) {
                    hits++;
                    sender = Boolean.valueOf(flag.group(1));
                }
                return true;
            }
            Matcher number = JSON_NUMBER.matcher(text);
            if (!number.find()) {
                return false;
            }
            String key = number.group(1);
            double value = Double.parseDouble(number.group(2));
            boolean known = true;
            switch (key) {
                case "num_streams" -> streams = (int) value;
                case "bits_per_second" -> {
                    if (section == Section.SENT) {
                        sentGbps = value / 1e9;
                    } else if (section == Section.RECEIVED) {
                        receivedGbps = value / 1e9;
                    } else {
                        known = false; // an interval's or a stream's: the sums say it all
                    }
                }
                case "retransmits" -> {
                    if (section == Section.SENT) {
                        retransmits = (long) value;
                    } else {
                        known = false;
                    }
                }
                case "host_total" -> localCpu = section == Section.CPU ? value : localCpu;
                case "remote_total" -> remoteCpu = section == Section.CPU ? value : remoteCpu;
                default -> known = false;
            }
            if (known) {
                hits++;
                jsonSeen = true;
            }
            return true;
        }
        hits++;
        jsonSeen = true;
        return true;
    }

    private void error(String message, Line line) {
        boolean connect = message.contains("unable to connect") || message.contains("Connection refused") || message.contains("No route to host");
        findings.add(connect ? "iperf3-connect-failed" : "iperf3-error", Severity.ERROR, "iperf3: " + message,
                connect ? CONNECT_REMEDY : "iperf3 stopped before it measured: see its message", line);
    }

    private static double gbps(double value, String prefix) {
        return switch (prefix) {
            case "K" -> value / 1e6;
            case "M" -> value / 1e3;
            case "T" -> value * 1e3;
            case "" -> value / 1e9;
            default -> value;
        };
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
        if (!sumTotals && streamTotals && !jsonSeen) {
            sentGbps = streamSentGbps > 0 ? streamSentGbps : null;
            receivedGbps = streamReceivedGbps > 0 ? streamReceivedGbps : null;
            retransmits = streamSentGbps > 0 ? streamRetransmits : null;
        }
        if (sentGbps != null || receivedGbps != null || localCpu != null) {
            report.iperf3 = new Iperf3Summary(round(sentGbps), round(receivedGbps), retransmits, round(localCpu), round(remoteCpu), streams, sender);
        }
    }

    private static Double round(Double value) {
        return value == null ? null : Math.round(value * 1000) / 1000.0;
    }
}
