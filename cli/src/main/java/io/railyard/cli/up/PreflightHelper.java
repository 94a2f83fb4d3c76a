package io.railyard.cli.up;

import java.nio.file.Path;
import java.util.List;

/** What a training pod's preflight gate does on a sandbox node, which KWOK cannot run: its helper, with the pod's arguments. */
public interface PreflightHelper {
    /**
     * @param exitCode the helper's exit status: 0 when every sending link is fast enough
     * @param message its termination message, the figures the operator reads
     * @param log what it printed, the container's log
     */
    record Outcome(int exitCode, String message, String log) {}

    /** Runs the gate's helper with {@code args} on the node whose tree is {@code nodeRoot}, with its first {@code devices} ports. */
    Outcome run(List<String> args, Path nodeRoot, int devices);
}
