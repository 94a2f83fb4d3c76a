package io.railyard.cli;

import io.railyard.api.Names;
import io.railyard.operator.model.RestartStrategies;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code railyard restart-watch}: the native sidecar of a gang that restarts in place. It needs no API credentials: the
 * operator moves the pod's attempt label, the kubelet writes the labels into a downward-API file, and when that attempt
 * is newer than the one the trainer runs (the file await-rank wrote), this exits with the code whose rule restarts every
 * container of the pod where it stands.
 */
@Command(
        name = "restart-watch",
        mixinStandardHelpOptions = true,
        description = "Exit with code " + RestartStrategies.RESTART_CODE + " (restart the pod in place) once the operator moves the pod to a newer attempt.")
final class RestartWatchCommand implements Callable<Integer> {

    @Option(names = "--labels", required = true, description = "The downward-API file of the pod's labels.")
    Path labels;

    @Option(names = "--attempt-file", required = true, description = "The file await-rank wrote: the attempt the trainer runs.")
    Path attemptFile;

    @Option(names = "--poll-ms", defaultValue = "500", hidden = true)
    long pollMillis;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        while (true) {
            OptionalLong running = AwaitRankCommand.ran(attemptFile);
            OptionalLong newer = running.isEmpty() ? OptionalLong.empty() : AwaitRankCommand.newAttempt(labels, attemptFile);
            if (newer.isPresent()) {
                spec.commandLine().getErr().println("restart-watch: the gang moved to attempt " + newer.getAsLong() + " (" + Names.ATTEMPT_LABEL
                        + "); the trainer runs attempt " + running.getAsLong() + ": restarting the pod in place");
                spec.commandLine().getErr().flush();
                return RestartStrategies.RESTART_CODE;
            }
            Thread.sleep(pollMillis);
        }
    }
}
