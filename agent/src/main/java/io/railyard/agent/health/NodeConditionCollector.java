package io.railyard.agent.health;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/** {@code railyard_rdma_node_condition{type}}: 1 while the agent's condition of that type is True on the Node. */
public final class NodeConditionCollector implements MultiCollector {
    private final NodeHealthMonitor monitor;

    public NodeConditionCollector(NodeHealthMonitor monitor) {
        this.monitor = monitor;
    }

    @Override
    public MetricSnapshots collect() {
        GaugeSnapshot.Builder gauge = GaugeSnapshot.builder().name("railyard_rdma_node_condition")
                .help("1 while the Node's RDMA condition of this type is True (RdmaPortDown, RdmaLinkFlapping, RdmaPortErrors, RdmaDeviceMissing)");
        monitor.conditions().forEach(c -> gauge.dataPoint(GaugeDataPointSnapshot.builder().labels(Labels.of("type", c.type().name()))
                .value(c.status() ? 1 : 0).build()));
        return MetricSnapshots.of(gauge.build());
    }
}
