package io.railyard.diagnose.logs;

import java.util.List;

/**
 * What the analyzer concluded, with the lines that show it and what to do.
 *
 * @param occurrences how many lines showed it; the evidence keeps the first few
 */
public record Finding(String id, Severity severity, String summary, List<Evidence> evidence, long occurrences, String remedy) {
    public Finding {
        evidence = List.copyOf(evidence);
    }
}
