package io.railyard.agent.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.railyard.diagnose.CheckResult;
import io.railyard.diagnose.ClusterAccess;
import io.railyard.diagnose.Doctor;
import io.railyard.diagnose.DoctorInput;
import io.railyard.diagnose.DoctorReport;
import io.railyard.node.NodeDiscovery;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The doctor's node checks as gauges: {@code railyard_doctor_check_status{check}} is 0 ok, 1 warn, 2 fail, -1 skipped.
 * The doctor runs on {@link #refresh()}, not on every scrape; the kubernetes and perftest checks describe the
 * operator's tools, not the node, and are left out.
 */
public final class DoctorGauges implements MultiCollector {
    private static final Set<String> NOT_NODE_HEALTH = Set.of("kubernetes", "perftest");

    private final Path root;
    private final String rdmaResource;
    private volatile DoctorReport report;
    private volatile double ranAtSeconds;

    public DoctorGauges(Path root, String rdmaResource) {
        this.root = root;
        this.rdmaResource = rdmaResource;
    }

    /** Runs the doctor now. */
    public void refresh() {
        report = Doctor.run(new DoctorInput(NodeDiscovery.discover(root), Map.copyOf(System.getenv()), List.of(), rdmaResource,
                new ClusterAccess.NoCredentials("not asked by the exporter")));
        ranAtSeconds = System.currentTimeMillis() / 1000.0;
    }

    @Override
    public MetricSnapshots collect() {
        MetricFamilies metrics = new MetricFamilies();
        DoctorReport current = report;
        if (current != null) {
            for (CheckResult check : current.checks()) {
                if (!NOT_NODE_HEALTH.contains(check.id())) {
                    metrics.gauge("railyard_doctor_check_status", "The doctor's verdict on this node: 0 ok, 1 warn, 2 fail, -1 skipped",
                            Labels.of("check", check.id()), code(check));
                }
            }
            metrics.gauge("railyard_doctor_last_run_timestamp_seconds", "When the doctor last ran", Labels.EMPTY, ranAtSeconds);
        }
        return metrics.build();
    }

    private static int code(CheckResult check) {
        return switch (check.status()) {
            case OK -> 0;
            case WARN -> 1;
            case FAIL -> 2;
            case SKIP -> -1;
        };
    }
}
