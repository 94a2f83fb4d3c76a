package io.railyard.diagnose.logs;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Findings of one input as they are noticed, each keeping its first few lines of evidence: bounded memory. */
final class Findings {
    private static final int EVIDENCE_KEPT = 3;
    private static final int TEXT_KEPT = 300;

    private record Entry(Severity severity, String summary, String remedy, List<Evidence> evidence, long[] count) {}

    private final String file;
    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private final UnexplainedErrors unexplained;
    private long lineFindings;

    Findings(String file) {
        this.file = file;
        this.unexplained = new UnexplainedErrors(file);
    }

    /** How many times a line has been noted as a finding's evidence: a line that changes it was explained by a rule. */
    long lineFindings() {
        return lineFindings;
    }

    /** A line no rule took, kept if it reads as an error. */
    void unexplained(Line line) {
        unexplained.consider(line);
    }

    /** Notes a finding seen on a line; the first sighting's summary and remedy stand. */
    void add(String id, Severity severity, String summary, String remedy, Line line) {
        add(id, severity, summary, remedy, line.number(), line.text());
    }

    /** Notes a finding whose evidence is a line read earlier. */
    void add(String id, Severity severity, String summary, String remedy, long lineNumber, String lineText) {
        Entry entry = entries.computeIfAbsent(id, k -> new Entry(severity, summary, remedy, new ArrayList<>(), new long[1]));
        entry.count[0]++;
        lineFindings++;
        unexplained.explained(lineNumber);
        if (entry.evidence.size() < EVIDENCE_KEPT) {
            String text = Line.readable(lineText).strip();
            entry.evidence.add(new Evidence(file, lineNumber, text.length() > TEXT_KEPT ? text.substring(0, TEXT_KEPT) + "…" : text));
        }
    }

    /** A finding drawn from the whole input rather than one line. */
    void conclude(String id, Severity severity, String summary, String remedy) {
        entries.putIfAbsent(id, new Entry(severity, summary, remedy, new ArrayList<>(), new long[] {0}));
    }

    boolean has(String id) {
        return entries.containsKey(id);
    }

    /** Evidence already kept for a finding, for a conclusion that rests on it. */
    List<Evidence> evidenceOf(String id) {
        Entry entry = entries.get(id);
        return entry == null ? List.of() : entry.evidence;
    }

    List<Finding> list() {
        List<Finding> findings = new ArrayList<>();
        entries.forEach((id, e) -> findings.add(new Finding(id, e.severity, e.summary, e.evidence, e.count[0], e.remedy)));
        findings.addAll(unexplained.findings());
        findings.sort((a, b) -> b.severity().compareTo(a.severity()));
        return findings;
    }
}
