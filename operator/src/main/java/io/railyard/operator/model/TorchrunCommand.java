package io.railyard.operator.model;

import io.railyard.api.TrainingJobSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * The trainer's argv. torchrun takes its settings from the {@code PET_*} variables, so the argv holds only the script
 * (or {@code -m module}) and the user's arguments, each its own element: no value is ever part of a shell string.
 */
final class TorchrunCommand {
    /** Where the rank-waiting init container writes the rank and master address. */
    static final String RANK_ENV_FILE = "/var/run/railyard/rank.env";

    private TorchrunCommand() {}

    static List<String> argv(TrainingJobSpec spec, boolean waitForRank) {
        List<String> argv = new ArrayList<>();
        if (waitForRank) {
            // The shell only sources Railyard's own file; the user's values follow as "$@", never inside the string.
            argv.addAll(List.of("/bin/sh", "-c", ". " + RANK_ENV_FILE + " && exec torchrun \"$@\"", "torchrun"));
        } else {
            argv.add("torchrun");
        }
        if (spec.module != null) {
            argv.add("-m");
            argv.add(spec.module);
        } else {
            argv.add(spec.script);
        }
        if (spec.args != null) {
            argv.addAll(spec.args);
        }
        return argv;
    }
}
