package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.ResourceOperations;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.railyard.api.Names;
import io.railyard.api.RunPolicy;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import io.railyard.diagnose.logs.RdmaVerdict;
import io.railyard.operator.model.ChannelKey;
import io.railyard.operator.model.FailureBlame;
import io.railyard.operator.model.GangState;
import io.railyard.operator.model.HangWatch;
import io.railyard.operator.model.HostPaths;
import io.railyard.operator.model.StallVerdict;
import io.railyard.operator.model.JobValidation;
import io.railyard.operator.model.NodeFaults;
import io.railyard.operator.model.OperatorDefaults;
import io.railyard.operator.model.PreflightGate;
import io.railyard.operator.model.RestartBook;
import io.railyard.operator.model.RestartStrategies;
import io.railyard.operator.model.SparePods;
import io.railyard.operator.model.TrainingJobModel;
import io.railyard.operator.model.WorkloadGangModel;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns TrainingJobs: validate, create what the builders describe, observe the gang, restart it whole when a member
 * fails or a member's node turns bad (avoiding the node blamed), order ranks by topology, and patch the status only
 * when it changed.
 */
public final class TrainingJobReconciler implements Reconciler<TrainingJob>, Cleaner<TrainingJob> {
    private static final Logger LOG = LoggerFactory.getLogger(TrainingJobReconciler.class);
    /** Each job at least this often, so a missed event is acted on; a reconcile that finds nothing changed makes no request. */
    public static final java.time.Duration MAX_INTERVAL = java.time.Duration.ofMinutes(5);

    private final OperatorDefaults defaults;
    private final RankZeroLog rankZeroLog;
    private final Clock clock;
    private final OperatorMetrics metrics = new OperatorMetrics();
    private final PodExpectations expectations = new PodExpectations();
    private final StallWatch stallWatch = new StallWatch();
    /** When each job's preflight gate stops waiting for its peers, as its last reconcile observed it. */
    private final Map<String, Instant> preflightDecidesAt = new java.util.concurrent.ConcurrentHashMap<>();
    private final DueTimes dueTimes;
    private final SpeedWatch speedWatch = new SpeedWatch();
    private final OwnedObjects ownedObjects = new OwnedObjects();

    /**
     * @param rankZeroLog where rank 0's log is read, for the RdmaVerified condition (null: through the API server)
     * @param clock what deadlines, time to live, the preflight gate's wait and condition times are measured with
     */
    public TrainingJobReconciler(OperatorDefaults defaults, RankZeroLog rankZeroLog, Clock clock) {
        this.defaults = defaults;
        this.rankZeroLog = rankZeroLog;
        this.clock = clock;
        this.dueTimes = new DueTimes(clock);
    }

    /** The operator's own metrics, for a registry. */
    public OperatorMetrics metrics() {
        return metrics;
    }

    @Override
    public List<EventSource<?, TrainingJob>> prepareEventSources(EventSourceContext<TrainingJob> context) {
        List<EventSource<?, TrainingJob>> sources = new ArrayList<>(JobInformers.prepare(context));
        sources.add(dueTimes);
        return sources;
    }

    @Override
    public UpdateControl<TrainingJob> reconcile(TrainingJob job, Context<TrainingJob> context) {
        Instant now = clock.instant();
        UpdateControl<TrainingJob> control = decide(job, context);
        control.getResource().ifPresent(fresh -> changed(job, fresh.getStatus(), context.getClient()));
        TrainingJobStatus latest = control.getResource().map(TrainingJob::getStatus).orElse(job.getStatus());
        metrics.reconciled(key(job), latest);
        scheduleNext(GangRuns.planned(job, latest), context, now);
        return control;
    }

    /** Sets when this job is due again with nothing changed; what was due by the start of this reconcile was seen by it. */
    private void scheduleNext(TrainingJob job, Context<TrainingJob> context, Instant reconciledAt) {
        String run = String.valueOf(job.getStatus() == null || job.getStatus().restarts == null ? 0 : job.getStatus().restarts);
        List<Pod> pods = JobInformers.pods(context).stream().filter(pod -> GangRuns.ofRun(pod, run)).toList();
        JobDeadlines.Kept kept = new JobDeadlines.Kept(stallWatch.lastRead(job), expectations.nextUnseen(key(job)), preflightDecidesAt.get(key(job)),
                speedWatch.lastRead(job));
        Optional<Instant> next = JobDeadlines.next(job, pods, name -> JobInformers.node(context, name), kept, reconciledAt);
        dueTimes.set(ResourceID.fromResource(job), next.filter(at -> at.isAfter(reconciledAt)).orElse(null));
    }

    /** Events for the conditions that changed, and the restart metric by cause. */
    private void changed(TrainingJob job, TrainingJobStatus after, KubernetesClient client) {
        JobEvents.record(client, job, job.getStatus(), after, clock.instant());
        Integer restartsBefore = job.getStatus() == null ? null : job.getStatus().restarts;
        if (after.restarts != null && !after.restarts.equals(restartsBefore) && after.restartHistory != null) {
            metrics.restarted(after.restartHistory.getLast().cause);
        }
    }

    private UpdateControl<TrainingJob> decide(TrainingJob job, Context<TrainingJob> context) {
        KubernetesClient client = context.getClient();
        TrainingJobStatus before = job.getStatus() == null ? new TrainingJobStatus() : job.getStatus();
        TrainingJobStatus status = Serialization.clone(before);
        StatusWriter writer = new StatusWriter(status, generation(job), now());
        Map<Boolean, List<Pod>> bySpare = JobInformers.pods(context).stream().collect(Collectors.partitioningBy(SparePods::isSpare));
        List<Pod> spares = bySpare.get(true);
        List<Pod> cached = bySpare.get(false);
        if ("Succeeded".equals(status.phase) || "Failed".equals(status.phase)) {
            return FinishedJobs.tidy(job, client, status, cached, spares, clock.instant());
        }
        if (!job.unreadFields().isEmpty()) {
            writer.fail("UnreadableSpec", "the operator cannot read " + String.join("; ", job.unreadFields())
                    + ": is the CRD newer than the operator? Upgrade the operator, or remove the field");
            return StatusPatch.of(job, before, status);
        }
        List<String> errors = new ArrayList<>(JobValidation.errors(job));
        errors.addAll(HostPaths.disallowed(job, defaults.allowedHostPaths()));
        RestartStrategies.unserved(job.getSpec(), defaults.inPlaceRestart()).ifPresent(errors::add);
        WorkloadGangModel.unserved(job.getSpec(), defaults.workloadGangs()).ifPresent(errors::add);
        if (!errors.isEmpty()) {
            writer.fail("InvalidSpec", String.join("; ", errors));
            return StatusPatch.of(job, before, status);
        }
        Function<String, Optional<Node>> nodes = name -> JobInformers.node(context, name);
        RunPolicy policy = job.getSpec().runPolicy;
        status.excludedNodes = RestartBook.stillExcluded(status.excludedNodes, nodes, policy, clock.instant());
        TrainingJob planned = GangRuns.planned(job, status);
        TrainingJobModel.Desired owned = TrainingJobModel.owned(planned, defaults);
        if (job.getStatus() == null) {
            JobEvents.warnings(client, job, owned.warnings(), clock.instant());
        }
        Optional<String> dropped = ownedObjects.ensure(context, job, owned.objects(), ChannelKey.needed(job, defaults));
        if (dropped.isPresent()) {
            writer.fail("InvalidSpec", dropped.get());
            return StatusPatch.of(job, before, status);
        }
        String run = String.valueOf(status.restarts == null ? 0 : status.restarts);
        Map<Boolean, List<Pod>> byRun = cached.stream().collect(Collectors.partitioningBy(pod -> GangRuns.ofRun(pod, run)));
        List<Pod> pods = byRun.get(true);
        if (inPlace(job)) { // pods an operator stopped before it moved them to this run: moved now (not those moved here, shown late)
            Set<String> moved = expectations.expected(key(job));
            List<Pod> earlier = byRun.get(false).stream().filter(pod -> !moved.contains(pod.getMetadata().getName())).toList();
            InPlaceRestart.apply(client, job, InPlaceRestart.plan(earlier, GangRuns.excludedNodes(status)), Integer.parseInt(run));
        } else {
            KueueGroups.end(client, byRun.get(false));
            GangPods.deleteEarlierRuns(client, byRun.get(false));
        }
        int nodeCount = job.getSpec().nodes;
        Set<String> deleted = expectations.deleted(key(job), PodExpectations.names(pods), clock.instant());
        GangState gang = GangState.observe(nodeCount, job.getMetadata().getName(), pods, deleted);
        PreflightGate.Result preflight = PreflightGate.observe(job, pods, clock.instant());
        if (preflight.decidesAt() == null) {
            preflightDecidesAt.remove(key(job));
        } else {
            preflightDecidesAt.put(key(job), preflight.decidesAt());
        }
        if (preflight.state() == PreflightGate.State.FAILED) {
            writer.preflight(preflight.status());
            preflight.nodesToMark().forEach(node -> GangPods.markFailed(client, node));
            if (preflight.nodesToMark().isEmpty()) {
                writer.fail("PreflightFailed", preflight.status().message);
                return stopNow(job, context, before, status);
            }
            String first = preflight.nodesToMark().getFirst();
            return restart(job, context, before, status, writer, pods, spares, "NodeFailure", preflight.nodesToMark(), new FailureBlame.Blame(
                    FailureBlame.Cause.NODE, NodeFaults.PREFLIGHT_FAILED, first, null, null, "preflight: " + preflight.status().message));
        }
        if (preflight.state() == PreflightGate.State.PASSED && status.preflight == null) {
            writer.preflight(preflight.status());
        }
        if (gang.failure().isPresent() && !preflight.holdsFailure()) {
            String rankZero = before.ranks == null ? job.getMetadata().getName() + "-0" : before.ranks.getFirst().pod;
            FailureBlame.Blame found = FailureBlame.of(gang.failure().get(), gang.failed(), pods, nodes,
                    () -> logs(client).tail(job.getMetadata().getNamespace(), rankZero));
            FailureBlame.Blame blame = found.cause() != FailureBlame.Cause.JOB ? found : SchedulerReason.evicted(context, planned)
                    .map(words -> FailureBlame.evicted(gang.failure().get(), words)).orElse(found);
            String reason = switch (blame.cause()) {
                case JOB -> "GangFailed";
                case NODE -> "NodeFailure";
                case PREEMPTION -> "Preempted";
            };
            return restart(job, context, before, status, writer, pods, spares, reason, blame.node() == null ? List.of() : List.of(blame.node()), blame);
        }
        Optional<FailureBlame.Blame> unhealthy = FailureBlame.whileRunning(pods, nodes, clock.instant());
        if (unhealthy.isPresent()) {
            return restart(job, context, before, status, writer, pods, spares, "NodeUnhealthy", List.of(unhealthy.get().node()), unhealthy.get());
        }
        if (deadlinePassed(job, status)) {
            writer.fail("DeadlineExceeded", "ran longer than activeDeadlineSeconds " + job.getSpec().runPolicy.activeDeadlineSeconds);
            return stopNow(job, context, before, status);
        }
        Set<String> existing = new java.util.HashSet<>(PodExpectations.names(cached));
        cached.stream().map(pod -> pod.getMetadata().getLabels().get(Names.INDEX_LABEL)).filter(Objects::nonNull)
                .forEach(index -> existing.add(job.getMetadata().getName() + "-" + index)); // a promoted spare holds its rank's place
        existing.addAll(expectations.awaited(key(job), clock.instant())); // created by an earlier reconcile, not shown yet
        List<Pod> missing = TrainingJobModel.pods(planned, defaults, index -> !existing.contains(job.getMetadata().getName() + "-" + index));
        if (!missing.isEmpty()) {
            Optional<Duration> waiting = Admission.waiting(status, generation(job), clock.instant());
            if (waiting.isPresent()) {
                return StatusPatch.of(job, before, status);
            }
            expectations.created(key(job), PodExpectations.names(missing), clock.instant());
            GangPods.Uncreated uncreated = GangPods.createAll(client, missing);
            expectations.refused(key(job), uncreated.taken());
            expectations.refused(key(job), uncreated.refused().keySet());
            if (!uncreated.refused().isEmpty()) {
                Map.Entry<String, KubernetesClientException> first = uncreated.refused().entrySet().iterator().next();
                String reason = Admission.reason(first.getValue());
                writer.rejected(first.getKey(), reason, Admission.message(first.getValue()), Admission.remedy(reason));
                return StatusPatch.of(job, before, status);
            }
        }
        if (status.podRejection != null) {
            writer.admitted();
        }
        status.ranks = GangRanks.of(context, client, job, pods, gang);
        status.gpus = nodeCount * job.getSpec().gpusPerNode;
        writer.observe(gang, SchedulerReason.of(context, planned, pods));
        if (!spares.isEmpty() || SparePods.desired(job, defaults) > 0) { // a job without spares pays nothing for them
            Set<String> taken = PodExpectations.names(JobInformers.pods(context));
            status.spares = SparePool.keep(client, GangRuns.planned(job, status), defaults, spares, taken, status.phase, nodes, clock.instant());
        }
        if ("Running".equals(status.phase)) {
            InPlaceRestart.recovery(status, pods, clock.instant()).ifPresent(seconds -> {
                TrainingJobStatus.Restart last = status.restartHistory.getLast();
                last.recoverySeconds = seconds;
                metrics.recovered(last.strategy, seconds);
            });
        }
        if ("Running".equals(status.phase) && (status.rdma == null || status.rdma.verified == null) && status.ranks != null) {
            verifyRdma(job, client, status, writer);
        }
        Optional<StallVerdict> stall = "Running".equals(status.phase)
                ? stallWatch.read(job, logs(client), pods, clock.instant()) : Optional.empty();
        if (stall.isPresent() && !stall.get().state().equals("unavailable")) {
            writer.stall(stall.get());
            boolean stuck = stall.get().state().equals("stalled") || stall.get().state().equals("missing");
            if (stuck && HangWatch.restarts(job.getSpec())) {
                Optional<String> node = stall.get().singleNode();
                FailureBlame.Blame blame = new FailureBlame.Blame(node.isPresent() ? FailureBlame.Cause.NODE : FailureBlame.Cause.JOB,
                        node.isPresent() ? "Ranks" + capitalized(stall.get().state()) : "Stalled", node.orElse(null), null, null,
                        "nccl-watch: " + stall.get().describe());
                return restart(job, context, before, status, writer, pods, spares, "Stalled", node.map(List::of).orElse(List.of()), blame);
            }
        }
        if ("Running".equals(status.phase)) {
            speedWatch.read(job, logs(client), status, clock.instant()).ifPresent(writer::performance);
        }
        return StatusPatch.of(job, before, status);
    }

    private static String capitalized(String word) {
        return Character.toUpperCase(word.charAt(0)) + word.substring(1);
    }

    /**
     * Records a failure in the status (counters, history, exclusions), writes it, and only then restarts the run's pods
     * in place or deletes them: an operator that stops in between finds the restart counted and the old pods marked as
     * an earlier run, which it moves to the new one or deletes.
     */
    private UpdateControl<TrainingJob> restart(TrainingJob job, Context<TrainingJob> context, TrainingJobStatus before,
            TrainingJobStatus status, StatusWriter writer, List<Pod> pods, List<Pod> spares, String reason, List<String> exclude,
            FailureBlame.Blame blame) {
        RestartBook.Decision decision = RestartBook.record(status, blame, exclude, job.getSpec().runPolicy, clock.instant());
        if (!decision.restarts()) {
            writer.fail(decision.terminalReason(), decision.message());
            return stopNow(job, context, before, status);
        }
        TrainingJobStatus.Restart entry = status.restartHistory.getLast();
        int nodes = job.getSpec().nodes;
        // a preempted gang is recreated whole: its scheduler is taking its pods away (Kueue one by one), none stays in place
        if (!inPlace(job) || blame.cause() == FailureBlame.Cause.PREEMPTION) {
            entry.strategy = "Recreate";
            entry.replaced = nodes;
            writer.restart(reason, blame.message(), "every pod is recreated");
            writeNow(job, context, before, status);
            // each pod only while it is the earlier run's: on a real API server a delete of 1,024 pods by label outlasted
            // the client's 10 s timeout and went on deleting by name the new run's pods that took the names meanwhile
            List<Pod> earlier = new ArrayList<>(pods);
            earlier.addAll(spares);
            KueueGroups.end(context.getClient(), earlier);
            GangPods.deleteEarlierRuns(context.getClient(), earlier);
            return UpdateControl.noUpdate();
        }
        InPlaceRestart.Plan plan = InPlaceRestart.plan(pods, GangRuns.excludedNodes(status));
        Map<Pod, Pod> promotions = SparePool.pairs(plan.replaced(), spares, GangRuns.excludedNodes(status));
        entry.strategy = "InPlace";
        entry.restartedInPlace = plan.inPlace().size();
        entry.promoted = promotions.size();
        entry.replaced = nodes - plan.inPlace().size() - promotions.size();
        writer.restart(reason, blame.message(), plan.describe(nodes, promotions.size()));
        writeNow(job, context, before, status);
        // the spares first: the cache shows a spare in its rank's place before it shows that rank's old pod gone
        SparePool.promote(context.getClient(), job, defaults, promotions, status.restarts);
        InPlaceRestart.apply(context.getClient(), job, plan, status.restarts);
        List<Pod> kept = new ArrayList<>(plan.inPlace());
        kept.addAll(promotions.values());
        expectations.created(key(job), PodExpectations.names(kept), clock.instant()); // they stay: gone later is a deletion
        return UpdateControl.noUpdate();
    }

    /** Writes the status now, through the operator's cache so that the next reconcile sees it, then deletes the pods. */
    private UpdateControl<TrainingJob> stopNow(TrainingJob job, Context<TrainingJob> context, TrainingJobStatus before, TrainingJobStatus status) {
        writeNow(job, context, before, status);
        KueueGroups.end(context.getClient(), JobInformers.pods(context));
        GangPods.deletePods(context.getClient(), job);
        return UpdateControl.noUpdate();
    }

    private void writeNow(TrainingJob job, Context<TrainingJob> context, TrainingJobStatus before, TrainingJobStatus status) {
        StatusPatch.log(job, before, status);
        ResourceOperations<TrainingJob> operations = new ResourceOperations<>(context);
        if (context.getControllerConfiguration().getConfigurationService().useSSAToPatchPrimaryResource()) {
            // the field manager of every other status write: a field a later apply leaves out (an exclusion run out) is
            // removed only where that manager owns it, and a JSON patch's fields belong to another
            operations.serverSideApplyPrimaryStatus(StatusPatch.fresh(job, status));
        } else {
            operations.jsonPatchPrimaryStatus(job, current -> {
                current.setStatus(status);
                return current;
            });
        }
        changed(job, status, context.getClient());
        expectations.forget(key(job));
    }

    private boolean inPlace(TrainingJob job) {
        return RestartStrategies.inPlace(job.getSpec(), defaults.inPlaceRestart());
    }

    private RankZeroLog logs(KubernetesClient client) {
        return rankZeroLog != null ? rankZeroLog : RankZeroLog.through(client);
    }

    /** Reads rank 0's NCCL lines until they tell whether RDMA is really used. */
    private void verifyRdma(TrainingJob job, KubernetesClient client, TrainingJobStatus status, StatusWriter writer) {
        String rankZero = status.ranks.getFirst().pod;
        logs(client).read(job.getMetadata().getNamespace(), rankZero).ifPresent(log -> {
            boolean gpuDirect = job.getSpec().rdma == null || job.getSpec().rdma.gpuDirect == null || job.getSpec().rdma.gpuDirect;
            RdmaVerdict verdict = RdmaVerdict.of(log, gpuDirect);
            writer.rdma(verdict, rankZero);
        });
    }

    @Override
    public DeleteControl cleanup(TrainingJob job, Context<TrainingJob> context) {
        // Owner references let the garbage collector do this; deleting here also covers clusters (and test servers)
        // where it is slow or absent.
        KubernetesClient client = context.getClient();
        metrics.removed(key(job));
        expectations.forget(key(job));
        stallWatch.forget(job);
        speedWatch.forget(job);
        preflightDecidesAt.remove(key(job));
        ownedObjects.forget(job);
        dueTimes.set(ResourceID.fromResource(job), null);
        KueueGroups.end(client, JobInformers.pods(context));
        GangPods.deletePods(client, job);
        GangPods.deleteOwned(client, job);
        GangPods.releaseFinalizer(client, job, context.getControllerConfiguration().getFinalizerName());
        return DeleteControl.noFinalizerRemoval();
    }

    private boolean deadlinePassed(TrainingJob job, TrainingJobStatus status) {
        Long deadline = job.getSpec().runPolicy == null ? null : job.getSpec().runPolicy.activeDeadlineSeconds;
        return deadline != null && status.startTime != null && clock.instant().isAfter(Instant.parse(status.startTime).plusSeconds(deadline));
    }

    private static String key(TrainingJob job) {
        return job.getMetadata().getNamespace() + "/" + job.getMetadata().getName();
    }

    private static long generation(TrainingJob job) {
        return job.getMetadata().getGeneration() == null ? 0 : job.getMetadata().getGeneration();
    }

    private String now() {
        return clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
