package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.api.model.Condition;
import java.util.Optional;
import io.railyard.api.TrainingJobStatus;
import io.railyard.operator.model.Conditions;
import io.railyard.diagnose.logs.RdmaVerdict;
import io.railyard.operator.model.GangState;
import io.railyard.operator.model.SpeedVerdict;
import io.railyard.operator.model.StallVerdict;

/** Sets a job's phase and conditions together, so that they never disagree. */
final class StatusWriter {
    private final TrainingJobStatus status;
    private final long generation;
    private final String now;

    StatusWriter(TrainingJobStatus status, long generation, String now) {
        this.status = status;
        this.generation = generation;
        this.now = now;
    }

    void fail(String reason, String message) {
        status.phase = "Failed";
        status.completionTime = now;
        set("Failed", true, reason, message);
        set("Running", false, reason, message);
    }

    /**
     * The gang restarts: its ranks, preflight figures and RDMA verdict belong to the run that ended.
     *
     * @param how what happens to the pods: "every pod is recreated", or how many restart in place
     */
    void restart(String reason, String failure, String how) {
        status.phase = "Pending";
        status.ranks = null;
        status.preflight = null;
        status.rdma = null;
        status.stall = null;
        status.performance = null;
        if (status.conditions != null && status.conditions.stream().anyMatch(c -> c.getType().equals("Degraded") && "True".equals(c.getStatus()))) {
            set("Degraded", false, reason, "the gang restarts; its speed is measured again");
        }
        String counts = "restart " + status.restarts + ": " + count(status.jobFailures, "job failure") + ", "
                + count(status.nodeFailures, "node failure") + ", " + count(status.restarts - value(status.jobFailures) - value(status.nodeFailures), "preemption");
        set("Restarting", true, reason, failure + ": " + how + " (" + counts + ")");
        set("Running", false, reason, failure);
        set("Scheduled", false, reason, failure);
    }

    private static String count(Integer count, String what) {
        return value(count) + " " + what + (value(count) == 1 ? "" : "s");
    }

    private static int value(Integer count) {
        return count == null ? 0 : count;
    }

    /** @param schedulerSays why the gang scheduler leaves the gang waiting, in its words, when it says */
    void observe(GangState gang, Optional<String> schedulerSays) {
        String phase = gang.phase();
        status.phase = phase;
        boolean placed = gang.scheduled() == gang.expected();
        set("Scheduled", placed, placed ? "AllPodsPlaced" : "Waiting", gang.scheduled() + " of " + gang.expected() + " pods have a node"
                + (placed ? "" : schedulerSays.map(reason -> "; " + reason).orElse("")));
        boolean running = phase.equals("Running");
        set("Running", running, running ? "AllRanksRunning" : "Waiting", gang.running() + " of " + gang.expected() + " pods running");
        if (running && status.startTime == null) {
            status.startTime = now;
        }
        if (phase.equals("Succeeded")) {
            status.completionTime = now;
            set("Succeeded", true, "AllRanksSucceeded", "every rank exited 0");
        }
        if (running && status.conditions != null && status.conditions.stream().anyMatch(c -> c.getType().equals("Restarting"))) {
            set("Restarting", false, "Running", "the gang runs again");
        }
    }

    /** The API server refused a pod of the gang: counted, with its words, the remedy and when the next try comes. */
    void rejected(String pod, String reason, String message, String remedy) {
        TrainingJobStatus.PodRejection rejection = status.podRejection == null ? new TrainingJobStatus.PodRejection() : status.podRejection;
        rejection.count = rejection.count == null ? 1 : rejection.count + 1;
        rejection.last = now;
        rejection.reason = reason;
        status.podRejection = rejection;
        set(Admission.CONDITION, true, reason, "pod " + pod + ": " + message + "; " + remedy + " (refused " + rejection.count
                + (rejection.count == 1 ? " time" : " times in a row") + "; next try in " + Admission.delay(rejection.count).toSeconds()
                + " s, or at once when the TrainingJob changes)");
    }

    /** The gang's pods were accepted after a refusal. */
    void admitted() {
        status.podRejection = null;
        set(Admission.CONDITION, false, "Admitted", "the API server accepted the gang's pods");
    }

    /** The nccl-watch sidecar's verdict: the Stalled condition, and status.stall while something is wrong. */
    void stall(StallVerdict verdict) {
        if (verdict.state().equals("healthy")) {
            status.stall = null;
            set("Stalled", false, "Progressing", verdict.message());
            return;
        }
        String reason = switch (verdict.state()) {
            case "lagging" -> "RanksLagging";
            case "missing" -> "RanksMissing";
            default -> "NoProgress";
        };
        TrainingJobStatus.Stall stall = new TrainingJobStatus.Stall();
        stall.state = verdict.state();
        stall.since = status.stall != null && verdict.state().equals(status.stall.state) ? status.stall.since : now;
        stall.ranks = verdict.ranks();
        status.stall = stall;
        set("Stalled", true, reason, verdict.describe());
    }

    /**
     * NCCL Inspector's verdict: the Degraded condition and status.performance, written only when the verdict or its
     * slow ranks change, so that a running job's status is not rewritten every interval.
     */
    void performance(SpeedVerdict verdict) {
        Condition current = status.conditions == null ? null
                : status.conditions.stream().filter(c -> c.getType().equals("Degraded")).findFirst().orElse(null);
        boolean same = current != null && current.getStatus().equals(verdict.degraded() ? "True" : "False")
                && current.getReason().equals(verdict.reason()) && status.performance != null
                && slowRanks(status.performance).equals(slowRanks(verdict.performance()));
        if (same) {
            return;
        }
        verdict.performance().since = now;
        status.performance = verdict.performance();
        set("Degraded", verdict.degraded(), verdict.reason(), verdict.message());
    }

    private static java.util.List<Integer> slowRanks(TrainingJobStatus.Performance performance) {
        return performance.slowRanks == null ? java.util.List.of() : performance.slowRanks.stream().map(rank -> rank.rank).toList();
    }

    /** The preflight gate's figures and the PreflightPassed condition. */
    void preflight(TrainingJobStatus.Preflight preflight) {
        status.preflight = preflight;
        set("PreflightPassed", preflight.passed, preflight.passed ? "AllLinksFast" : "PreflightFailed", preflight.message);
    }

    /** The verdict on rank 0's NCCL log, as status and the RdmaVerified condition; an undecided log sets nothing. */
    void rdma(RdmaVerdict verdict, String pod) {
        if (verdict.verified() == null) {
            return;
        }
        TrainingJobStatus.RdmaVerification rdma = new TrainingJobStatus.RdmaVerification();
        rdma.verified = verdict.verified();
        rdma.reason = verdict.reason();
        String evidence = verdict.evidence().isEmpty() ? "" : " (" + pod + " line " + verdict.evidence().getFirst().line() + ": "
                + verdict.evidence().getFirst().text() + ")";
        rdma.message = verdict.message() + evidence;
        status.rdma = rdma;
        set("RdmaVerified", verdict.verified(), verdict.reason(), rdma.message);
    }

    private void set(String type, boolean value, String reason, String message) {
        status.conditions = Conditions.set(status.conditions, type, value, reason, message, generation, now);
    }
}
