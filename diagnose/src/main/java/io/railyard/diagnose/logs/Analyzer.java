package io.railyard.diagnose.logs;

import java.util.List;
import java.util.function.Predicate;

/** Reads one kind of input line by line, in bounded memory, and adds what it saw to the report. */
interface Analyzer {

    /** Looks at a line; lines of other kinds are ignored. */
    void accept(Line line);

    /** How many lines were recognized as this analyzer's kind: the input's kind is the analyzer with the most. */
    long hits();

    /** Adds this analyzer's facts and findings once the input has been read. */
    void finish(LogReport.Builder report);

    /** The lines this analyzer may act on (see {@link Interest}); by default every line. */
    default Interest interest() {
        return Interest.EVERY_LINE;
    }

    /**
     * The lines an analyzer may act on: those holding one of its words, and those its test takes (a table's row, the next
     * line of a block it is in the middle of). It does nothing with any other line, so a line that no analyzer's words or
     * test takes is handed to none ({@link Interests}).
     */
    record Interest(List<String> words, Predicate<Line> also) {
        static final Interest EVERY_LINE = new Interest(List.of(), line -> true);
        /** The test of an analyzer that acts only on lines with its words. */
        static final Predicate<Line> NO_OTHER_LINE = line -> false;

        static Interest words(List<String> words) {
            return new Interest(words, NO_OTHER_LINE);
        }

        /** A table's row: its first character that is not blank is a digit. */
        static boolean row(Line line) {
            char first = line.firstNonBlank();
            return first >= '0' && first <= '9';
        }
    }
}
