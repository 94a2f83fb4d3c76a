package io.railyard.agent;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/** The device plugin as the kubelet sees it: registration, each device's health, and what Allocate handed out. */
public final class DevicePluginCollector implements MultiCollector {
    private final DevicePluginAgent agent;

    public DevicePluginCollector(DevicePluginAgent agent) {
        this.agent = agent;
    }

    @Override
    public MetricSnapshots collect() {
        GaugeSnapshot.Builder registered = GaugeSnapshot.builder().name("railyard_device_plugin_registered")
                .help("1 while the resource is registered with the kubelet");
        GaugeSnapshot.Builder healthy = GaugeSnapshot.builder().name("railyard_device_plugin_device_healthy")
                .help("1 while the device is advertised Healthy: its port ACTIVE and LinkUp and its uverbs node present");
        CounterSnapshot.Builder allocations = CounterSnapshot.builder().name("railyard_device_plugin_allocations")
                .help("Times Allocate handed the device to a container");
        CounterSnapshot.Builder refused = CounterSnapshot.builder().name("railyard_device_plugin_allocations_refused")
                .help("Allocate calls refused for an unknown or unhealthy device");
        for (RdmaDevicePlugin plugin : agent.plugins()) {
            String resource = plugin.resource().name();
            registered.dataPoint(GaugeDataPointSnapshot.builder().labels(Labels.of("resource", resource))
                    .value(agent.isRegistered(plugin) ? 1 : 0).build());
            plugin.deviceHealth().forEach((device, ok) -> healthy.dataPoint(GaugeDataPointSnapshot.builder()
                    .labels(Labels.of("device", device, "resource", resource)).value(ok ? 1 : 0).build()));
            plugin.allocationCounts().forEach((device, count) -> allocations.dataPoint(CounterDataPointSnapshot.builder()
                    .labels(Labels.of("device", device, "resource", resource)).value(count).build()));
            refused.dataPoint(CounterDataPointSnapshot.builder().labels(Labels.of("resource", resource))
                    .value(plugin.refusedAllocations()).build());
        }
        return MetricSnapshots.of(registered.build(), healthy.build(), allocations.build(), refused.build());
    }
}
