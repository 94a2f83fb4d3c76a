package io.railyard.agent.metrics;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot.InfoDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The metric families of one scrape, filled sample by sample. Names are given without the {@code _total} or
 * {@code _info} suffix the exposition formats add.
 */
final class MetricFamilies {
    private enum Type { COUNTER, GAUGE, INFO }

    private record Family(Type type, String help, List<Object> points) {}

    private final Map<String, Family> families = new LinkedHashMap<>();

    void counter(String name, String help, Labels labels, double value) {
        family(name, Type.COUNTER, help).points.add(CounterDataPointSnapshot.builder().labels(labels).value(value).build());
    }

    void gauge(String name, String help, Labels labels, double value) {
        family(name, Type.GAUGE, help).points.add(GaugeDataPointSnapshot.builder().labels(labels).value(value).build());
    }

    void info(String name, String help, Labels labels) {
        family(name, Type.INFO, help).points.add(InfoDataPointSnapshot.builder().labels(labels).build());
    }

    MetricSnapshots build() {
        List<MetricSnapshot> snapshots = new ArrayList<>();
        families.forEach((name, family) -> snapshots.add(switch (family.type) {
            case COUNTER -> new CounterSnapshot(metadata(name, family), cast(family.points));
            case GAUGE -> new GaugeSnapshot(metadata(name, family), cast(family.points));
            case INFO -> new InfoSnapshot(metadata(name, family), cast(family.points));
        }));
        return new MetricSnapshots(snapshots);
    }

    private Family family(String name, Type type, String help) {
        Family family = families.computeIfAbsent(name, n -> new Family(type, help, new ArrayList<>()));
        if (family.type != type) {
            throw new IllegalArgumentException(name + " is a " + family.type + ", not a " + type);
        }
        return family;
    }

    private static io.prometheus.metrics.model.snapshots.MetricMetadata metadata(String name, Family family) {
        return new io.prometheus.metrics.model.snapshots.MetricMetadata(name, family.help);
    }

    @SuppressWarnings("unchecked")
    private static <T> List<T> cast(List<Object> points) {
        return (List<T>) (List<?>) points;
    }
}
