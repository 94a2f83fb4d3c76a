package io.railyard.diagnose.logs;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Hands each line to the analyzers it may concern: to all of them when it holds one of their words, else to those whose
 * own test takes it. Most lines of a large log that are not NCCL's hold none (a training script's progress): they cost
 * one search instead of a call to every analyzer (bench/analyze-vs-grep.sh).
 */
final class Interests {
    private final List<Analyzer> all;
    private final Line.Words words;
    private final List<Analyzer> tested = new ArrayList<>();
    private final List<Predicate<Line>> tests = new ArrayList<>();

    Interests(List<Analyzer> analyzers) {
        this.all = List.copyOf(analyzers);
        List<String> union = new ArrayList<>();
        for (Analyzer analyzer : all) {
            Analyzer.Interest interest = analyzer.interest();
            interest.words().stream().filter(word -> !union.contains(word)).forEach(union::add);
            if (interest.also() != Analyzer.Interest.NO_OTHER_LINE) {
                tested.add(analyzer);
                tests.add(interest.also());
            }
        }
        this.words = Line.Words.of(union);
    }

    void offer(Line line) {
        if (line.containsAny(words)) {
            for (Analyzer analyzer : all) {
                analyzer.accept(line);
            }
            return;
        }
        for (int i = 0; i < tests.size(); i++) {
            if (tests.get(i).test(line)) {
                tested.get(i).accept(line);
            }
        }
    }
}
