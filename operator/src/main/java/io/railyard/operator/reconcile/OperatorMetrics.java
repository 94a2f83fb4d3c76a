package io.railyard.operator.reconcile;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** What the operator does, for Prometheus: jobs by phase, reconciles, gang restarts by cause. */
public final class OperatorMetrics implements MultiCollector {
    private final Map<String, String> phases = new ConcurrentHashMap<>();
    private final LongAdder reconciles = new LongAdder();
    /** Gang restarts by cause: Job, Node or Preemption. */
    private final Map<String, LongAdder> restarts = new ConcurrentHashMap<>();

    void reconciled(String job, String phase) {
        reconciles.increment();
        if (phase != null) {
            phases.put(job, phase);
        }
    }

    void restarted(String cause) {
        restarts.computeIfAbsent(cause, c -> new LongAdder()).increment();
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
                restarts());
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
