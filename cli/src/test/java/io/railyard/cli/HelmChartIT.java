package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** deploy/helm/railyard with the real helm: lint, the objects it renders against `kubectl kustomize deploy/`, every switch, bad values. */
class HelmChartIT {
    private static final String CHART = "deploy/helm/railyard";
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /** The CRD file says {@code minimum: 1.0}, which kubectl writes as 1: the same number. */
    private static final Comparator<JsonNode> NUMBERS_BY_VALUE = (a, b) -> a.isNumber() && b.isNumber()
            ? Double.compare(a.doubleValue(), b.doubleValue()) : a.equals(b) ? 0 : 1;

    private static List<JsonNode> documents(String yaml) throws Exception {
        List<JsonNode> documents = new ArrayList<>();
        for (JsonNode document : YAML.readValues(YAML.createParser(yaml), JsonNode.class).readAll()) {
            if (document != null && !document.isNull() && !document.isEmpty()) {
                documents.add(document);
            }
        }
        return documents;
    }

    /** The rendered objects by kind/name; {@code --api-versions monitoring.coreos.com/v1} as on a cluster with the Prometheus operator. */
    private static Map<String, JsonNode> render(String... set) throws Exception {
        List<String> args = new ArrayList<>(List.of("template", "railyard", CHART, "-n", "railyard-system", "--include-crds",
                "--api-versions", "monitoring.coreos.com/v1"));
        for (String value : set) {
            args.addAll(List.of("--set", value));
        }
        HelmTool.Result result = HelmTool.named("helm").run(args.toArray(String[]::new));
        assertThat(result.exitCode()).as(result.err()).isZero();
        return byName(documents(result.out()));
    }

    private static Map<String, JsonNode> kustomize(String dir) throws Exception {
        HelmTool.Result result = HelmTool.named("kubectl").run("kustomize", dir);
        assertThat(result.exitCode()).as(result.err()).isZero();
        return byName(documents(result.out()));
    }

    private static Map<String, JsonNode> byName(List<JsonNode> objects) {
        Map<String, JsonNode> byName = new LinkedHashMap<>();
        objects.forEach(o -> byName.put(o.path("kind").asText() + "/" + o.path("metadata").path("name").asText(), o));
        return byName;
    }

    /** An object without its labels and annotations: Helm adds its own, the rest must be the same. */
    private static JsonNode withoutMetadataLabels(JsonNode object) {
        ObjectNode copy = object.deepCopy();
        ((ObjectNode) copy.path("metadata")).remove(List.of("labels", "annotations"));
        JsonNode template = copy.path("spec").path("template").path("metadata");
        if (template instanceof ObjectNode templateMetadata) {
            templateMetadata.remove("annotations");
        }
        return copy;
    }

    private static JsonNode container(Map<String, JsonNode> objects, String key) {
        JsonNode spec = objects.get(key).path("spec");
        JsonNode pod = spec.has("jobTemplate") ? spec.path("jobTemplate").path("spec").path("template") : spec.path("template");
        return pod.path("spec").path("containers").get(0);
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(n -> texts.add(n.isTextual() ? n.asText() : n.toString()));
        return texts;
    }

    @Test
    void lintIsCleanEvenStrict() throws Exception {
        for (String[] args : List.of(new String[] {"lint", CHART}, new String[] {"lint", "--strict", CHART},
                new String[] {"lint", "--strict", CHART, "--set", "fabric.enabled=true"})) {
            HelmTool.Result lint = HelmTool.named("helm").run(args);

            assertThat(lint.exitCode()).as(lint.out() + lint.err()).isZero();
            assertThat(lint.out()).contains("1 chart(s) linted, 0 chart(s) failed").doesNotContain("[WARNING]").doesNotContain("[ERROR]");
        }
    }

    @Test
    void defaultsRenderTheObjectsOfTheKustomizeBase() throws Exception {
        Map<String, JsonNode> chart = render();
        Map<String, JsonNode> base = kustomize("deploy/");
        assertThat(base.keySet()).as("deploy/ applies on a cluster without the Prometheus Operator")
                .noneMatch(k -> k.startsWith("PodMonitor/") || k.startsWith("PrometheusRule/"));
        base.putAll(kustomize("deploy/monitoring"));
        base.remove("Namespace/railyard-system");   // helm install --create-namespace makes the release's namespace

        assertThat(chart.keySet()).containsExactlyInAnyOrderElementsOf(base.keySet());
        for (String key : base.keySet()) {
            assertThat(withoutMetadataLabels(chart.get(key)).equals(NUMBERS_BY_VALUE, withoutMetadataLabels(base.get(key))))
                    .as(key + "\n" + chart.get(key) + "\n" + base.get(key)).isTrue();
            base.get(key).path("metadata").path("labels").properties().forEach(label -> assertThat(
                    chart.get(key).path("metadata").path("labels").path(label.getKey())).as(key + " " + label.getKey()).isEqualTo(label.getValue()));
        }
        assertThat(chart.get("ConfigMap/railyard-grafana-dashboard").path("metadata").path("labels").path("grafana_dashboard").asText())
                .isEqualTo("1");
    }

    @Test
    void fabricSwitchedOnRendersTheCronJobOfDeployFabric() throws Exception {
        Map<String, JsonNode> chart = render("fabric.enabled=true");
        Map<String, JsonNode> base = kustomize("deploy/fabric");

        for (String key : base.keySet()) {
            assertThat(withoutMetadataLabels(chart.get(key)).equals(NUMBERS_BY_VALUE, withoutMetadataLabels(base.get(key))))
                    .as(key + "\n" + chart.get(key) + "\n" + base.get(key)).isTrue();
        }
        assertThat(render()).doesNotContainKey("CronJob/railyard-fabric");
    }

    @Test
    void draSwitchedOnRendersTheObjectsOfDeployDra() throws Exception {
        Map<String, JsonNode> chart = render("agent.dra.enabled=true");
        Map<String, JsonNode> base = kustomize("deploy/dra");

        for (String key : List.of("DaemonSet/railyard-agent", "DeviceClass/rdma.railyard.io", "ClusterRole/railyard-agent-dra",
                "ClusterRoleBinding/railyard-agent-dra")) {
            assertThat(withoutMetadataLabels(chart.get(key)).equals(NUMBERS_BY_VALUE, withoutMetadataLabels(base.get(key))))
                    .as(key + "\n" + chart.get(key) + "\n" + base.get(key)).isTrue();
        }
        assertThat(render()).doesNotContainKey("DeviceClass/rdma.railyard.io");
    }

    @Test
    void everyRenderedObjectReadsBackIntoFabric8sTypedModelsWithNoUnknownField() throws Exception {
        HelmTool.Result result = HelmTool.named("helm").run("template", "railyard", CHART, "-n", "railyard-system", "--include-crds",
                "--api-versions", "monitoring.coreos.com/v1", "--set", "fabric.enabled=true");

        for (JsonNode document : documents(result.out())) {
            HasMetadata object = Serialization.unmarshal(document.toString(), HasMetadata.class);
            assertThat(object).as(document.path("kind").asText()).isNotInstanceOf(GenericKubernetesResource.class);
            assertThat(unknownFields(object, new IdentityHashMap<>())).as(object.getKind() + "/" + object.getMetadata().getName()).isEmpty();
        }
    }

    @Test
    void switchesChangeWhatTheyName() throws Exception {
        JsonNode noPlugin = container(render("agent.devicePlugin.enabled=false"), "DaemonSet/railyard-agent");
        assertThat(texts(noPlugin.path("args"))).contains("--no-device-plugin").doesNotContain("--device-plugin-dir=/var/lib/kubelet/device-plugins");
        assertThat(noPlugin.path("volumeMounts").toString()).doesNotContain("device-plugins");

        Map<String, JsonNode> noMonitoring = render("monitoring.enabled=false");
        assertThat(noMonitoring.keySet()).noneMatch(k -> k.startsWith("PodMonitor/") || k.startsWith("PrometheusRule/"))
                .doesNotContain("ConfigMap/railyard-grafana-dashboard");
        HelmTool.Result withoutPrometheusOperator = HelmTool.named("helm").run("template", "railyard", CHART, "-n", "railyard-system");
        assertThat(byName(documents(withoutPrometheusOperator.out())).keySet()).noneMatch(k -> k.startsWith("PodMonitor/"))
                .contains("ConfigMap/railyard-grafana-dashboard");

        Map<String, JsonNode> custom = render("rdma.resourceName=rdma/ib", "fabric.enabled=true");
        assertThat(custom.get("ConfigMap/railyard-agent").path("data").path("agent.yaml").asText()).contains("- name: rdma/ib");
        JsonNode fabric = container(custom, "CronJob/railyard-fabric");
        assertThat(fabric.path("resources").path("limits").has("rdma/ib")).as("a busy cluster has no exclusive port free").isFalse();
        assertThat(fabric.path("resources").path("limits").path("railyard.io/fabric-probe").asText()).isEqualTo("1");
        assertThat(texts(fabric.path("args"))).as("findings do not fail the Job").contains("--exit-zero");
        assertThat(texts(container(custom, "Deployment/railyard-operator").path("args"))).as("jobs that name no resource request it")
                .contains("--rdma-resource=rdma/ib");

        JsonNode watching = container(render("operator.watchNamespaces={team-a,team-b}"), "Deployment/railyard-operator");
        assertThat(texts(watching.path("args"))).containsSubsequence("--namespace=team-a", "--namespace=team-b");
        assertThat(texts(watching.path("args"))).as("no hostPath by default").noneMatch(arg -> arg.startsWith("--allowed-host-paths"));
        JsonNode mounting = container(render("operator.allowedHostPaths={/mnt/lustre,/data}"), "Deployment/railyard-operator");
        String[] args = texts(mounting.path("args")).toArray(String[]::new);
        assertThat(((OperatorCommand) Railyard.commandLine(args).parseArgs(args).subcommand().commandSpec().userObject())
                .installation.defaults().allowedHostPaths()).containsExactly("/mnt/lustre", "/data");

        Map<String, JsonNode> single = render("operator.leaderElection=false");
        assertThat(single).doesNotContainKey("Role/railyard-operator-leader-election");
        assertThat(single.get("Deployment/railyard-operator").path("spec").path("replicas").asInt())
                .as("two replicas without leader election would both reconcile every job").isEqualTo(1);
        assertThat(texts(container(single, "Deployment/railyard-operator").path("args"))).contains("--leader-election-namespace=");

        Map<String, JsonNode> elsewhere = render("image.repository=registry.example.com/railyard", "image.tag=1.2.3",
                "imagePullSecrets[0].name=regcred", "commonLabels.team=ml", "agent.config.resources[0].name=rdma/roce");
        assertThat(container(elsewhere, "DaemonSet/railyard-agent").path("image").asText()).isEqualTo("registry.example.com/railyard:1.2.3");
        assertThat(texts(container(elsewhere, "Deployment/railyard-operator").path("args"))).as("the job pods' helper containers")
                .contains("--railyard-image=registry.example.com/railyard:1.2.3");
        assertThat(elsewhere.get("Deployment/railyard-operator").path("spec").path("template").path("spec").path("imagePullSecrets").toString())
                .contains("regcred");
        assertThat(elsewhere.values()).filteredOn(o -> !o.path("kind").asText().equals("CustomResourceDefinition"))   // crds/ is not templated
                .allSatisfy(o -> assertThat(o.path("metadata").path("labels").path("team").asText()).isEqualTo("ml"));
        assertThat(elsewhere.get("ConfigMap/railyard-agent").path("data").path("agent.yaml").asText()).contains("name: rdma/roce");

        JsonNode topology = render("agent.topologyFiles.ndv5-topo\\.xml=<system version=\"1\"/>", "agent.config.resources[0].name=rdma/ib",
                "agent.config.resources[0].topology.file=/etc/railyard/ndv5-topo.xml").get("ConfigMap/railyard-agent").path("data");
        assertThat(topology.path("ndv5-topo.xml").asText()).as("beside agent.yaml, at /etc/railyard in the agent").isEqualTo("<system version=\"1\"/>\n");
        assertThat(io.railyard.agent.AgentConfig.load(Files.writeString(Files.createTempFile("agent", ".yaml"), topology.path("agent.yaml").asText()))
                .resources().getFirst().topology().file()).isEqualTo("/etc/railyard/ndv5-topo.xml");

        String health = render("agent.nodeHealth.taint.enabled=true", "agent.nodeHealth.expectedPorts=8").get("ConfigMap/railyard-agent")
                .path("data").path("agent.yaml").asText();
        Path agentYaml = Files.writeString(Files.createTempFile("agent", ".yaml"), health);
        assertThat(io.railyard.agent.AgentConfig.load(agentYaml).nodeHealth()).satisfies(h -> {
            assertThat(h.taint().enabled()).isTrue();
            assertThat(h.expectedPorts()).isEqualTo(8);
            assertThat(h.stickySeconds()).isEqualTo(600);
        });
    }

    @Test
    void badValuesFailWithTheSchemasMessage() throws Exception {
        HelmTool.Result notANumber = HelmTool.named("helm").run("template", "railyard", CHART, "--set", "operator.replicas=two");
        HelmTool.Result unknownKey = HelmTool.named("helm").run("template", "railyard", CHART, "--set", "operatr.replicas=1");

        assertThat(notANumber.exitCode()).isNotZero();
        assertThat(notANumber.err()).contains("values don't meet the specifications of the schema").contains("replicas");
        assertThat(unknownKey.exitCode()).isNotZero();
        assertThat(unknownKey.err()).contains("operatr");
    }

    @Test
    void chartVersionIsTheProjectsAndWhatTheJarSays() throws Exception {
        String chart = Files.readString(HelmTool.REPO.resolve(CHART).resolve("Chart.yaml"));
        Matcher version = Pattern.compile("(?m)^version: (\\S+)$").matcher(chart);
        String pom = Files.readString(HelmTool.REPO.resolve("pom.xml"));
        Matcher projectVersion = Pattern.compile("<artifactId>railyard-parent</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
        assertThat(version.find()).isTrue();
        assertThat(projectVersion.find()).isTrue();

        assertThat(version.group(1)).isEqualTo(projectVersion.group(1));
        String java = ProcessHandle.current().info().command().orElse("java");
        Process jar = new ProcessBuilder(java, "-jar", HelmTool.REPO.resolve("cli/target/railyard.jar").toString(), "--version").start();
        assertThat(new String(jar.getInputStream().readAllBytes()).strip()).isEqualTo("railyard " + version.group(1));
    }

    /** Paths to every non-empty additionalProperties map in a fabric8 model graph: fields the model does not know. */
    private static List<String> unknownFields(Object object, Map<Object, Boolean> seen) throws Exception {
        List<String> unknown = new ArrayList<>();
        if (object == null || seen.put(object, true) != null || !object.getClass().getName().startsWith("io.fabric8.")) {
            if (object instanceof Collection<?> items) {
                for (Object item : items) {
                    unknown.addAll(unknownFields(item, seen));
                }
            } else if (object instanceof Map<?, ?> map) {
                for (Object value : map.values()) {
                    unknown.addAll(unknownFields(value, seen));
                }
            }
            return unknown;
        }
        for (Method getter : object.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || !getter.getName().startsWith("get") || getter.getDeclaringClass() == Object.class) {
                continue;
            }
            Object value = getter.invoke(object);
            if (getter.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    unknown.add(object.getClass().getSimpleName() + " " + extra.keySet());
                }
            } else if (!Set.of("getClass").contains(getter.getName())) {
                unknown.addAll(unknownFields(value, seen));
            }
        }
        return unknown;
    }
}
