package io.railyard.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.railyard.agent.AgentConfig;
import io.railyard.agent.DevicePluginTestbed;
import io.railyard.agent.podresources.FakePodResources;
import io.railyard.agent.podresources.PodIdentities;
import io.railyard.agent.podresources.PodResourcesClient;
import io.railyard.agent.podresources.PortAllocationCollector;
import io.railyard.agent.podresources.PortHolders;
import io.railyard.diagnose.inspector.IntervalSpeeds;
import io.railyard.node.NodeDiscovery;
import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The whole exposition (ports, doctor, device plugin, the nccl-speed sidecar's) against promtool, the alert rules and the dashboards. */
class MonitoringIT {
    private static final Path MONITORING = Path.of(System.getProperty("railyard.repo", "..")).resolve("deploy/monitoring");
    private static final Pattern METRIC = Pattern.compile("\\b(railyard_[a-z0-9_]+)");
    private static final Pattern RECORDED = Pattern.compile("\\b(railyard:[a-z0-9_:]+)");

    @TempDir
    static Path dir;
    static DevicePluginTestbed testbed;
    static FakePodResources kubelet;
    static PodResourcesClient podResources;
    static String exposition;

    @BeforeAll
    static void scrape() throws Exception {
        testbed = DevicePluginTestbed.start(dir);
        testbed.allocate("mlx5_1:1");
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new RdmaPortCollector(testbed.root()));
        DoctorGauges doctor = new DoctorGauges(testbed.root(), "rdma/rdma");
        doctor.refresh();
        registry.register(doctor);
        registry.register(new io.railyard.agent.DevicePluginCollector(testbed.agent()));
        kubelet = FakePodResources.serve(dir.resolve("pod-resources.sock"));
        kubelet.list(FakePodResources.pod("ml", "llama-worker-0", FakePodResources.container("trainer", "rdma/rdma", "mlx5_1:1")));
        podResources = new PodResourcesClient(dir.resolve("pod-resources.sock"));
        registry.register(new PortAllocationCollector(podResources, PortHolders.forNode(NodeDiscovery.discover(testbed.root()),
                AgentConfig.defaults(), ""), (namespace, pod) -> new PodIdentities.Identity("llama", "0"), Clock.systemUTC(), Duration.ZERO));
        NcclSpeedCollector speed = new NcclSpeedCollector("llama", "0", () -> 800, () -> 0);
        IntervalSpeeds.Speed allReduce = new IntervalSpeeds.Speed(new IntervalSpeeds.Key("AllReduce", "1 GiB", "0x7f8c496ae9f661"), 390, 380, 0.005, 800);
        speed.interval(List.of(allReduce), List.of(new io.railyard.diagnose.inspector.RankSummary.Process(5, 1639458, 5, "mlx5_5:1", List.of(allReduce))));
        registry.register(speed); // the nccl-speed sidecar's, scraped from the job's pods
        await().until(() -> testbed.agent().isServingAndRegistered());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
        exposition = out.toString(StandardCharsets.UTF_8);
    }

    @AfterAll
    static void stop() {
        podResources.close();
        kubelet.close();
        testbed.close();
    }

    @Test
    void promtoolFindsNothingToLint() throws Exception {
        Path promtool = ExternalTool.require("promtool");
        Process check = new ProcessBuilder(promtool.toString(), "check", "metrics").redirectErrorStream(true).start();
        check.getOutputStream().write(exposition.getBytes(StandardCharsets.UTF_8));
        check.getOutputStream().close();
        String output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(check.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(output).isEmpty();
        assertThat(check.exitValue()).isZero();
        assertThat(exposition).contains("railyard_device_plugin_allocations_total{device=\"mlx5_1:1\",resource=\"rdma/rdma\"} 1",
                "railyard_doctor_check_status{check=\"link\"} 0", "railyard_rdma_req_transport_retries_exceeded_total{");
    }

    /**
     * InfiniBand and RoCE trees, and one with a hardware counter Railyard has no name for (mlx5's optional congestion
     * counters): every family a node can show passes the linter, not only the testbed's.
     */
    @ParameterizedTest
    @ValueSource(strings = {"roce-8gpu", "ib-8gpu", "roce-12hca", "roce-8gpu with cc_rx_ce_pkts"})
    void promtoolFindsNothingToLintOnEveryTree(String tree) throws Exception {
        Path promtool = ExternalTool.require("promtool");
        HostTree host = ExampleNodes.write(tree.split(" ")[0], dir.resolve(tree.replace(' ', '-')));
        if (tree.endsWith("cc_rx_ce_pkts")) {
            host.file(host.portDir("mlx5_1", 1) + "/hw_counters/cc_rx_ce_pkts", "12");
        }
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new RdmaPortCollector(host.root()));
        ByteArrayOutputStream scrape = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(scrape, registry.scrape());
        Process check = new ProcessBuilder(promtool.toString(), "check", "metrics").redirectErrorStream(true).start();
        check.getOutputStream().write(scrape.toByteArray());
        check.getOutputStream().close();
        String output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(check.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(output).as(tree).isEmpty();
        assertThat(check.exitValue()).isZero();
        assertThat(scrape.toString(StandardCharsets.UTF_8)).contains("railyard_rdma_state_id{");
        if (tree.endsWith("cc_rx_ce_pkts")) {
            assertThat(scrape.toString(StandardCharsets.UTF_8))
                    .contains("railyard_rdma_hw_events_total{counter=\"cc_rx_ce_pkts\",device=\"mlx5_1\",port=\"1\"} 12");
        }
    }

    @Test
    void openMetricsIsServedToo() throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new RdmaPortCollector(testbed.root()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new OpenMetricsTextFormatWriter(false, false).write(out, registry.scrape());

        assertThat(out.toString(StandardCharsets.UTF_8)).contains("# TYPE railyard_rdma_symbol_error counter").endsWith("# EOF\n");
    }

    @Test
    void alertRulesPassTheirUnitTests() throws Exception {
        Path promtool = ExternalTool.require("promtool");
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        JsonNode spec = yaml.readTree(MONITORING.resolve("prometheusrule.yaml").toFile()).path("spec");
        Path rules = Files.createDirectories(dir.resolve("rules"));
        yaml.writeValue(rules.resolve("railyard-rdma.rules.yaml").toFile(), spec);
        Files.copy(MONITORING.resolve("tests/alerts-test.yaml"), rules.resolve("alerts-test.yaml"));

        Process test = new ProcessBuilder(promtool.toString(), "test", "rules", "alerts-test.yaml")
                .directory(rules.toFile()).redirectErrorStream(true).start();
        String output = new String(test.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(test.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(test.exitValue()).as(output).isZero();
        assertThat(output).contains("SUCCESS");
    }

    @Test
    void alertsAndDashboardsNameOnlyExportedMetricsAndRecordedRules() throws Exception {
        Set<String> exported = new TreeSet<>();
        Exposition.parse(exposition).keySet().forEach(series -> exported.add(series.substring(0, series.indexOf('['))));
        String rules = Files.readString(MONITORING.resolve("prometheusrule.yaml"));
        Set<String> recorded = new TreeSet<>();
        new ObjectMapper(new YAMLFactory()).readTree(rules).path("spec").path("groups").forEach(group -> group.path("rules")
                .forEach(rule -> recorded.add(rule.path("record").asText())));
        Set<String> used = new TreeSet<>(names(rules));
        Set<String> recordedUsed = new TreeSet<>(recordedNames(rules));
        for (Path file : dashboards()) {
            Set<String> inDashboard = new TreeSet<>();
            Set<String> recordedInDashboard = new TreeSet<>();
            for (String query : queries(new ObjectMapper().readTree(file.toFile()))) {
                inDashboard.addAll(names(query));
                recordedInDashboard.addAll(recordedNames(query));
            }
            assertThat(inDashboard).as(file.getFileName() + " queries").isNotEmpty();
            used.addAll(inDashboard);
            recordedUsed.addAll(recordedInDashboard);
        }

        assertThat(used).contains("railyard_rdma_port_data_received_bytes_total", "railyard_doctor_check_status",
                "railyard_rdma_np_ecn_marked_roce_packets_received_total", "railyard_rdma_state_id",
                "railyard_rdma_port_allocation_info", "railyard_rdma_port_transmit_wait_total");
        used.removeIf(name -> name.startsWith("railyard_operator_")); // the operator's: OperatorMetricsTest
        assertThat(used).contains("railyard_nccl_bus_bandwidth_gbps", "railyard_nccl_gpu_bus_bandwidth_gbps");
        assertThat(exported).containsAll(used);
        assertThat(recorded).containsAll(recordedUsed);
    }

    @Test
    void everyDashboardQueryIsPromqlThatPromtoolAccepts() throws Exception {
        Path promtool = ExternalTool.require("promtool");
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        com.fasterxml.jackson.databind.node.ArrayNode rules = yaml.createArrayNode();
        for (Path file : dashboards()) {
            for (String query : queries(new ObjectMapper().readTree(file.toFile()))) {
                String promql = query.replace("$__rate_interval", "5m").replaceAll("\\$(\\w+)", "x");
                rules.addObject().put("record", "railyard:dashboard_query_" + rules.size()).put("expr", promql);
            }
        }
        Path file = dir.resolve("dashboard-queries.yaml");
        yaml.writeValue(file.toFile(), java.util.Map.of("groups", java.util.List.of(java.util.Map.of("name", "dashboards", "rules", rules))));

        Process check = new ProcessBuilder(promtool.toString(), "check", "rules", file.toString()).redirectErrorStream(true).start();
        String output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(check.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(check.exitValue()).as(output).isZero();
        assertThat(rules.size()).isGreaterThan(20);
    }

    private static java.util.List<Path> dashboards() throws java.io.IOException {
        try (java.util.stream.Stream<Path> files = Files.list(MONITORING)) {
            java.util.List<Path> found = files.filter(f -> f.toString().endsWith(".json")).sorted().toList();
            assertThat(found).extracting(f -> f.getFileName().toString()).contains("grafana-dashboard.json", "trainingjob-dashboard.json");
            return found;
        }
    }

    /** Every panel's query and every variable's, as Prometheus gets them (label_values is Grafana's, around a selector). */
    private static java.util.List<String> queries(JsonNode dashboard) {
        java.util.List<String> queries = new java.util.ArrayList<>();
        dashboard.findValues("expr").forEach(expr -> queries.add(expr.asText()));
        dashboard.path("templating").path("list").forEach(variable -> {
            String definition = variable.path("definition").asText();
            if (definition.startsWith("label_values(")) {
                queries.add(definition.substring("label_values(".length(), definition.lastIndexOf(',')));
            }
        });
        return queries;
    }

    private static Set<String> names(String text) {
        return names(METRIC, text);
    }

    private static Set<String> recordedNames(String text) {
        return names(RECORDED, text);
    }

    private static Set<String> names(Pattern pattern, String text) {
        Set<String> names = new TreeSet<>();
        Matcher matcher = pattern.matcher(text);
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        return names;
    }

}
