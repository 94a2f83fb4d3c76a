package io.railyard.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** One run of the railyard command line in this JVM, with what it printed. */
record CommandRun(int exitCode, String out, String err) {

    static CommandRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Railyard.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new CommandRun(code, out.toString(), err.toString());
    }
}
