package io.railyard.diagnose.logs;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The lines that read as a warning or an error and that no rule explained: each kind of line (numbers aside) becomes an
 * {@code unexplained-error} finding quoting its first occurrence, so that a person never loses the line that matters.
 * Bounded: the first {@link #KEPT} kinds are kept, the rest only counted.
 */
final class UnexplainedErrors {
    static final String ID = "unexplained-error";
    static final int KEPT = 20;
    private static final int TEXT_KEPT = 300;

    /** Cheap first tests, each a pair lookup in the line's bitmap: a line with none of them is no error line. */
    private static final Line.Words HINTS = Line.Words.of(List.of("rr", "RR", "ail", "AIL", "arn", "ARN", "ouldn", "nable", "annot", "atal",
            "ATAL", "eset by", "roken pipe", "egmentation", "timed out", "xception", "on-zero status", "bort"));
    private static final Pattern WORDS = Pattern.compile("\\b(?:[Ee]rrors?|ERRORS?|[Ff]ail(?:ed|ure|s)?|FAIL(?:ED|URE)?|[Ww]arn(?:ing)?|"
            + "WARN(?:ING)?|[Ff]atal|FATAL|[Cc]ouldn't|[Uu]nable to|[Cc]annot|err\\(|Segmentation fault|[Aa]bort(?:ed|ing)?|reset by peer|"
            + "[Bb]roken pipe|timed out|non-zero status)\\b|\\w+(?:Error|Exception):");
    /** glog and klog's severity letter: {@code E0214 16:46:52.014591 171152 file.cc:53]}. */
    private static final Pattern GLOG_PROBLEM = Pattern.compile("^\\s*[EWF]\\d{4} \\d\\d:\\d\\d:\\d\\d");
    /** A word that only counts zero of something ({@code RX errors 0}, {@code 0 FAILED}'s opposite {@code : 0 OK}). */
    private static final Pattern ZERO = Pattern.compile("^s?\\s*[:=]?\\s*0(?![.\\d])");
    /** Warnings that every run of a tool prints and that say nothing about the run. */
    private static final String[] BENIGN = {"Logging before InitGoogleLogging", "BW peak won't be measured"};
    private static final Pattern NUMBERS = Pattern.compile("\\d+");

    private record Seen(long line, String text, long[] count) {}

    private final String file;
    private final Map<String, Seen> kinds = new LinkedHashMap<>();
    private long more;

    UnexplainedErrors(String file) {
        this.file = file;
    }

    /** Looks at a line no rule took: keeps it when it reads as a warning or an error. */
    void consider(Line line) {
        if (!readsAsProblem(line)) {
            return;
        }
        String text = Line.readable(line.text()).strip();
        String key = NUMBERS.matcher(text.length() > TEXT_KEPT ? text.substring(0, TEXT_KEPT) : text).replaceAll("#");
        Seen seen = kinds.get(key);
        if (seen != null) {
            seen.count[0]++;
        } else if (kinds.size() < KEPT) {
            kinds.put(key, new Seen(line.number(), text.length() > TEXT_KEPT ? text.substring(0, TEXT_KEPT) + "…" : text, new long[] {1}));
        } else {
            more++;
        }
    }

    /** A rule explained a line after it was kept (a finding drawn when the input ended): it is no longer unexplained. */
    void explained(long lineNumber) {
        kinds.values().removeIf(seen -> seen.line == lineNumber);
    }

    static boolean readsAsProblem(Line line) {
        if (!line.containsAny(HINTS) && !(line.length() > 5 && isGlogProblem(line))) {
            return false;
        }
        String text = line.text();
        if (GLOG_PROBLEM.matcher(text).find()) {
            return true;
        }
        String stripped = text.strip();
        if (stripped.equals("Last error:") || stripped.startsWith("frame #") || stripped.indexOf(' ') < 0) {
            return false; // PyTorch's heading for the line after it, its C++ stack frames; a one-word heading (RAS's "Errors")
        }
        if (stripped.startsWith("#") && !stripped.contains("FAILED")) {
            return false; // a table's heading or a comment (nccl-tests' "#wrong", "error" columns; ucx_info's "error handling")
        }
        for (String benign : BENIGN) {
            if (text.contains(benign)) {
                return false;
            }
        }
        Matcher word = WORDS.matcher(text);
        while (word.find()) {
            if (!ZERO.matcher(text.substring(word.end())).find()) {
                return true;
            }
        }
        return false;
    }

    private static boolean isGlogProblem(Line line) {
        char first = line.firstNonBlank();
        return first == 'E' || first == 'W' || first == 'F';
    }

    List<Finding> findings() {
        List<Finding> findings = new ArrayList<>();
        kinds.values().forEach(seen -> findings.add(new Finding(ID, Severity.WARN, "a line that reads as an error, and no rule explains it",
                List.of(new Evidence(file, seen.line, seen.text)), seen.count[0],
                "railyard has no rule for this line: read it and the lines around it (line " + seen.line + ")")));
        if (more > 0) {
            findings.add(new Finding(ID, Severity.WARN, more + " more lines that read as errors, of other kinds than the " + KEPT + " above",
                    List.of(), more, "search the input for error, failed and WARN"));
        }
        return findings;
    }
}
