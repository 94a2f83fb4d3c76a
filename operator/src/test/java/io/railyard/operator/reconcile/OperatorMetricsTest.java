package io.railyard.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.railyard.api.TrainingJobStatus;
import io.railyard.operator.model.Conditions;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The operator's series: degraded jobs and their preflight figure, and every railyard_operator_ name the shipped rules and dashboards use. */
class OperatorMetricsTest {
    private static final Path MONITORING = Path.of(System.getProperty("railyard.repo", "..")).resolve("deploy/monitoring");

    private static String scrape(OperatorMetrics metrics) throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(metrics);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
        return out.toString(StandardCharsets.UTF_8);
    }

    private static TrainingJobStatus degraded(String phase) {
        TrainingJobStatus status = new TrainingJobStatus();
        status.phase = phase;
        status.conditions = Conditions.set(null, "Degraded", true, "RanksSlow", "rank 1 ...", 1, "2026-12-05T10:00:00Z");
        status.preflight = new TrainingJobStatus.Preflight();
        TrainingJobStatus.PreflightLink link = new TrainingJobStatus.PreflightLink();
        link.from = "gpu-1";
        link.hca = "mlx5_0";
        link.gbps = 392.0;
        status.preflight.links = List.of(link);
        return status;
    }

    @Test
    void aDegradedRunningJobIsOneSeriesWithItsReasonAndGoneWhenItEnds() throws Exception {
        OperatorMetrics metrics = new OperatorMetrics();
        metrics.reconciled("ml/llama", degraded("Running"));

        String text = scrape(metrics);
        assertThat(text).contains("railyard_operator_trainingjob_degraded{namespace=\"ml\",reason=\"RanksSlow\",trainingjob=\"llama\"} 1.0")
                .contains("railyard_operator_trainingjob_preflight_bus_bandwidth_gbps{namespace=\"ml\",trainingjob=\"llama\"} 49.0");

        metrics.reconciled("ml/llama", degraded("Succeeded"));
        assertThat(scrape(metrics)).doesNotContain("railyard_operator_trainingjob_degraded{")
                .doesNotContain("railyard_operator_trainingjob_preflight_bus_bandwidth_gbps{");
    }

    @Test
    void recoveriesAreAHistogramByStrategy() throws Exception {
        OperatorMetrics metrics = new OperatorMetrics();
        metrics.recovered("InPlace", 9);
        metrics.recovered("Recreate", 140);

        assertThat(scrape(metrics)).contains("railyard_operator_gang_recovery_seconds_bucket{strategy=\"InPlace\",le=\"10.0\"} 1")
                .contains("railyard_operator_gang_recovery_seconds_bucket{strategy=\"InPlace\",le=\"5.0\"} 0")
                .contains("railyard_operator_gang_recovery_seconds_bucket{strategy=\"Recreate\",le=\"120.0\"} 0")
                .contains("railyard_operator_gang_recovery_seconds_bucket{strategy=\"Recreate\",le=\"300.0\"} 1")
                .contains("railyard_operator_gang_recovery_seconds_sum{strategy=\"Recreate\"} 140.0");
    }

    @Test
    void everyOperatorSeriesTheRulesAndDashboardsNameIsOneItExports() throws Exception {
        OperatorMetrics metrics = new OperatorMetrics();
        metrics.reconciled("ml/llama", degraded("Running"));
        Set<String> exported = names(scrape(metrics));
        Set<String> used = new TreeSet<>();
        try (Stream<Path> files = Files.list(MONITORING)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".json") || f.toString().endsWith(".yaml")).toList()) {
                used.addAll(names(Files.readString(file)));
            }
        }
        assertThat(used).contains("railyard_operator_trainingjob_degraded", "railyard_operator_trainingjob_preflight_bus_bandwidth_gbps");
        assertThat(exported).containsAll(used);
    }

    private static Set<String> names(String text) {
        Set<String> names = new TreeSet<>();
        Matcher matcher = Pattern.compile("\\b(railyard_operator_[a-z0-9_]+?)(_total|_created)?\\b").matcher(text);
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        return names;
    }
}
