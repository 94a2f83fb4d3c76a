package io.railyard.operator.reconcile;

import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.fabric8.kubernetes.api.model.Condition;
import io.railyard.api.TrainingJobStatus;
import io.railyard.operator.model.SpeedVerdict;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** What the operator does, for Prometheus: jobs by phase, reconciles, gang restarts by cause and their recovery, degraded jobs. */
public final class OperatorMetrics implements MultiCollector {
    private final Map<String, String> phases = new ConcurrentHashMap<>();
    private final LongAdder reconciles = new LongAdder();
    /** Gang restarts by cause: Job, Node or Preemption. */
    private final Map<String, LongAdder> restarts = new ConcurrentHashMap<>();

    /** Degraded jobs by namespace/name, with the condition's reason. */
    private final Map<String, String> degraded = new ConcurrentHashMap<>();
    /** Seconds from a gang's restart until every rank of its new run was running, by strategy. */
    private final Histogram recovery = Histogram.builder().name("railyard_operator_gang_recovery_seconds")
            .help("Seconds from a gang's restart until every rank of the new run was running, by strategy (InPlace or Recreate)")
            .labelNames("strategy").classicUpperBounds(1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200).build();
    /** Each job's hot spares: how many it asks for and how many hold a node. */
    private final Map<String, TrainingJobStatus.Spares> spares = new ConcurrentHashMap<>();
    /** Each running job's preflight, its links' bus bandwidth worked out at scrape time, not on every reconcile. */
    private final Map<String, TrainingJobStatus.Preflight> preflights = new ConcurrentHashMap<>();

    void reconciled(String job, TrainingJobStatus status) {
        reconciles.increment();
        if (status == null) {
            return;
        }
        if (status.phase != null) {
            phases.put(job, status.phase);
        }
        Optional<Condition> condition = status.conditions == null ? Optional.empty()
                : status.conditions.stream().filter(c -> c.getType().equals("Degraded") && "True".equals(c.getStatus())).findFirst();
        boolean running = !"Succeeded".equals(status.phase) && !"Failed".equals(status.phase);
        condition.filter(c -> running).ifPresentOrElse(c -> degraded.put(job, c.getReason()), () -> degraded.remove(job));
        Optional.ofNullable(running ? status.preflight : null)
                .ifPresentOrElse(preflight -> preflights.put(job, preflight), () -> preflights.remove(job));
        Optional.ofNullable(running ? status.spares : null).ifPresentOrElse(pool -> spares.put(job, pool), () -> spares.remove(job));
    }

    void restarted(String cause) {
        restarts.computeIfAbsent(cause, c -> new LongAdder()).increment();
    }

    void recovered(String strategy, long seconds) {
        recovery.labelValues(strategy).observe(seconds);
    }

    /** Reconciles so far. */
    public long reconciles() {
        return reconciles.sum();
    }

    long gangRestarts(String cause) {
        LongAdder count = restarts.get(cause);
        return count == null ? 0 : count.sum();
    }

    void removed(String job) {
        phases.remove(job);
        degraded.remove(job);
        preflights.remove(job);
        spares.remove(job);
    }

    @Override
    public MetricSnapshots collect() {
        Map<String, Integer> byPhase = new TreeMap<>();
        for (String phase : new String[] {"Pending", "Scheduling", "Running", "Succeeded", "Failed"}) {
            byPhase.put(phase, 0);
        }
        phases.values().forEach(phase -> byPhase.merge(phase, 1, Integer::sum));
        GaugeSnapshot.Builder jobs = GaugeSnapshot.builder().name("railyard_operator_jobs").help("TrainingJobs by phase");
        byPhase.forEach((phase, count) -> jobs.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                .labels(Labels.of("phase", phase)).value(count).build()));
        return MetricSnapshots.of(jobs.build(),
                CounterSnapshot.builder().name("railyard_operator_reconciles").help("Reconciles of TrainingJobs")
                        .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().value(reconciles.sum()).build()).build(),
                restarts(), recovery.collect(), spares(), degraded(), preflight());
    }

    private GaugeSnapshot degraded() {
        GaugeSnapshot.Builder gauge = GaugeSnapshot.builder().name("railyard_operator_trainingjob_degraded")
                .help("1 for each running TrainingJob whose Degraded condition is True (NCCL Inspector: RanksSlow, JobSlow or NoData)");
        new TreeMap<>(degraded).forEach((job, reason) -> gauge.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                .labels(job(job).add("reason", reason)).value(1).build()));
        return gauge.build();
    }

    private GaugeSnapshot spares() {
        GaugeSnapshot.Builder gauge = GaugeSnapshot.builder().name("railyard_operator_spares")
                .help("Each running TrainingJob's hot spares: ready (placed on a node, waiting) and pending (asked for, not placed yet)");
        new TreeMap<>(spares).forEach((job, pool) -> {
            int ready = pool.ready == null ? 0 : pool.ready;
            int desired = pool.desired == null ? 0 : pool.desired;
            gauge.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(job(job).add("state", "ready")).value(ready).build());
            gauge.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(job(job).add("state", "pending"))
                    .value(Math.max(0, desired - ready)).build());
        });
        return gauge.build();
    }

    private GaugeSnapshot preflight() {
        GaugeSnapshot.Builder gauge = GaugeSnapshot.builder().name("railyard_operator_trainingjob_preflight_bus_bandwidth_gbps")
                .help("What each running TrainingJob's links measured in preflight, as NCCL bus bandwidth: the median node's HCAs' Gb/s over 8 (GB/s)");
        new TreeMap<>(preflights).forEach((job, preflight) -> Optional.ofNullable(SpeedVerdict.expectedGbps(preflight))
                .ifPresent(gbps -> gauge.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(job(job)).value(gbps).build())));
        return gauge.build();
    }

    private static Labels job(String key) {
        return Labels.of("namespace", key.substring(0, key.indexOf('/')), "trainingjob", key.substring(key.indexOf('/') + 1));
    }

    private CounterSnapshot restarts() {
        CounterSnapshot.Builder counter = CounterSnapshot.builder().name("railyard_operator_gang_restarts")
                .help("Gangs deleted and created again, by cause: Job (its own failure), Node (a node fault), Preemption");
        for (String cause : new String[] {"Job", "Node", "Preemption"}) {
            counter.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(Labels.of("cause", cause))
                    .value(gangRestarts(cause)).build());
        }
        return counter.build();
    }
}
