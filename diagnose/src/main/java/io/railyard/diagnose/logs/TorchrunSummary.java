package io.railyard.diagnose.logs;

import java.util.List;

/**
 * What torchrun and its elastic agent said of a failed run: each failed worker, the first observed failure first, and
 * the NCCL error under them where the paste holds one.
 *
 * @param ncclError the NCCL error a PyTorch exception names (its message), null without one
 */
public record TorchrunSummary(List<Failure> failures, String ncclError) {
    public TorchrunSummary {
        failures = List.copyOf(failures);
    }

    /**
     * One failed worker. Each part is null where the lines do not give it.
     *
     * @param rank      its global rank
     * @param localRank its rank on its node
     * @param exitCode  its exit code; a negative one is the signal that killed it
     * @param signal    that signal's name (SIGKILL), null for an exit
     * @param rootCause whether torchrun named it the first observed failure
     */
    public record Failure(Integer rank, Integer localRank, String host, Integer exitCode, String signal, Long pid, boolean rootCause) {
        /** As the summary names it: {@code rank 3}, or {@code local rank 3} where only that is known. */
        String who() {
            return rank != null ? "rank " + rank : localRank != null ? "local rank " + localRank : "a worker";
        }

        /** {@code exit 1}, {@code SIGKILL (-9)}, or null. */
        String how() {
            return signal != null ? signal + " (" + exitCode + ")" : exitCode != null ? "exit " + exitCode : null;
        }
    }
}
