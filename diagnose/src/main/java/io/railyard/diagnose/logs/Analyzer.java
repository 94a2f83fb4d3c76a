package io.railyard.diagnose.logs;

/** Reads one kind of input line by line, in bounded memory, and adds what it saw to the report. */
interface Analyzer {

    /** Looks at a line; lines of other kinds are ignored. */
    void accept(Line line);

    /** How many lines were recognized as this analyzer's kind: the input's kind is the analyzer with the most. */
    long hits();

    /** Adds this analyzer's facts and findings once the input has been read. */
    void finish(LogReport.Builder report);
}
