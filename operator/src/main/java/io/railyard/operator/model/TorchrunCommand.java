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

    /**
     * @param gpuNicsFile where the trainer leaves the device plugin's RAILYARD_GPU_NICS for the nccl-speed sidecar, which
     *                    names a slow GPU's NIC by it; null for none
     */
    static List<String> argv(TrainingJobSpec spec, boolean waitForRank, String gpuNicsFile) {
        List<String> argv = new ArrayList<>();
        List<String> steps = new ArrayList<>();
        if (waitForRank) {
            steps.add(". " + RANK_ENV_FILE);
        }
        if (gpuNicsFile != null) {
            steps.add("echo \"$RAILYARD_GPU_NICS\" > " + gpuNicsFile);
        }
        if (steps.isEmpty()) {
            argv.add("torchrun");
        } else {
            // The shell runs only Railyard's own steps; the user's values follow as "$@", never inside the string.
            argv.addAll(List.of("/bin/sh", "-c", String.join(" && ", steps) + " && exec torchrun \"$@\"", "torchrun"));
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
