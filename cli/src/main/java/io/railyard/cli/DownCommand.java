package io.railyard.cli;

import io.railyard.cli.up.SandboxDown;
import io.railyard.cli.up.SandboxException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code railyard down}: what {@code railyard up} started, stopped, and its state removed. */
@Command(
        name = "down",
        mixinStandardHelpOptions = true,
        description = "Stop what railyard up started (its processes, the control plane) and remove its state.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:taken down, or nothing was up", "1:a part could not be stopped (the message says which)", "2:usage error"})
final class DownCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--dir", description = "The cluster's state, as railyard up was given (default: ~/.cache/railyard/up).")
    Path dir;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try {
            boolean was = new SandboxDown(UpCommand.home(), UpCommand.sandbox(dir), message -> out.println("railyard down: " + message)).stopIfUp();
            if (!was) {
                out.println("railyard down: nothing of railyard up in " + UpCommand.sandbox(dir).dir());
            }
            return 0;
        } catch (SandboxException e) {
            spec.commandLine().getErr().println("down: " + e.getMessage());
            return 1;
        }
    }
}
