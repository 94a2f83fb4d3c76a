package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.railyard.agent.AgentConfig;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** deploy/agent: least privilege, the flags the benchmark measured, and arguments the agent accepts. */
class AgentManifestTest {
    private static final Path DEPLOY = Path.of(System.getProperty("railyard.repo", "..")).resolve("deploy/agent");

    private static <T extends HasMetadata> T load(String file, Class<T> type) throws Exception {
        try (KubernetesClient client = new KubernetesClientBuilder().build(); InputStream in = Files.newInputStream(DEPLOY.resolve(file))) {
            return client.load(in).items().stream().filter(type::isInstance).map(type::cast).findFirst().orElseThrow();
        }
    }

    @Test
    void daemonSetRunsWithoutCapabilitiesOnAReadOnlyRoot() throws Exception {
        Container agent = load("daemonset.yaml", DaemonSet.class).getSpec().getTemplate().getSpec().getContainers().getFirst();
        SecurityContext security = agent.getSecurityContext();

        assertThat(security.getAllowPrivilegeEscalation()).isFalse();
        assertThat(security.getPrivileged()).isFalse();
        assertThat(security.getReadOnlyRootFilesystem()).isTrue();
        assertThat(security.getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(security.getCapabilities().getAdd()).isNullOrEmpty();
        assertThat(agent.getVolumeMounts()).filteredOn(m -> m.getMountPath().equals("/host/sys")).extracting(VolumeMount::getReadOnly).containsExactly(true);
        assertThat(agent.getVolumeMounts()).extracting(VolumeMount::getMountPath).contains("/var/lib/kubelet/device-plugins");
        assertThat(agent.getResources().getRequests()).containsKeys("cpu", "memory");
        assertThat(agent.getResources().getLimits()).containsKeys("cpu", "memory");
        assertThat(agent.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    }

    @Test
    void daemonSetArgumentsAreOnesTheAgentAccepts() throws Exception {
        Container agent = load("daemonset.yaml", DaemonSet.class).getSpec().getTemplate().getSpec().getContainers().getFirst();

        String[] args = agent.getArgs().toArray(String[]::new);
        CommandLine.ParseResult parsed = Railyard.commandLine(args).parseArgs(args);

        assertThat(parsed.subcommand().commandSpec().name()).isEqualTo("agent");
    }

    @Test
    void podMonitorScrapesAPortTheAgentServesMetricsOn() throws Exception {
        Container agent = load("daemonset.yaml", DaemonSet.class).getSpec().getTemplate().getSpec().getContainers().getFirst();
        com.fasterxml.jackson.databind.JsonNode podMonitor = new com.fasterxml.jackson.databind.ObjectMapper(
                new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree(DEPLOY.resolveSibling("monitoring/podmonitor.yaml").toFile());
        String port = podMonitor.path("spec").path("podMetricsEndpoints").get(0).path("port").asText();

        io.fabric8.kubernetes.api.model.ContainerPort served = agent.getPorts().stream()
                .filter(p -> p.getName().equals(port)).findFirst().orElseThrow();
        assertThat(agent.getArgs()).contains("--metrics-address=0.0.0.0:" + served.getContainerPort());
        assertThat(agent.getVolumeMounts()).filteredOn(m -> m.getMountPath().equals("/host/proc")).extracting(VolumeMount::getReadOnly)
                .containsExactly(true);
    }

    @Test
    void configMapHoldsAValidAgentConfig() throws Exception {
        io.fabric8.kubernetes.api.model.ConfigMap map = load("configmap.yaml", io.fabric8.kubernetes.api.model.ConfigMap.class);
        Path file = Files.createTempFile("agent", ".yaml");
        Files.writeString(file, map.getData().get("agent.yaml"));

        assertThat(AgentConfig.load(file).resources()).extracting(r -> r.name() + " " + r.mode())
                .containsExactly("rdma/rdma EXCLUSIVE", "railyard.io/fabric-probe SHARED");
    }

    @Test
    void clusterRoleAllowsOnlyWhatTheAgentWritesOnItsNode() throws Exception {
        List<PolicyRule> rules = load("rbac.yaml", ClusterRole.class).getRules();

        assertThat(rules).extracting(r -> String.join(",", r.getResources()) + ": " + String.join(",", r.getVerbs()))
                .containsExactly("nodes: get,patch,list,watch", "nodes/status: patch", "events: create", "pods: list,watch");
    }

    @Test
    void theKubeletsPodResourcesSocketIsMountedReadOnlyWhereTheAgentLooksAndTheScrapeKeepsItsLabels() throws Exception {
        DaemonSet daemonSet = load("daemonset.yaml", DaemonSet.class);
        Container agent = daemonSet.getSpec().getTemplate().getSpec().getContainers().getFirst();
        String socketDir = io.railyard.agent.podresources.PodResourcesClient.DEFAULT_SOCKET.getParent().toString();

        assertThat(agent.getVolumeMounts()).filteredOn(m -> m.getMountPath().equals(socketDir))
                .singleElement().satisfies(mount -> {
                    assertThat(mount.getReadOnly()).isTrue();
                    assertThat(daemonSet.getSpec().getTemplate().getSpec().getVolumes()).filteredOn(v -> v.getName().equals(mount.getName()))
                            .singleElement().satisfies(volume -> assertThat(volume.getHostPath().getPath()).isEqualTo(socketDir));
                });
        com.fasterxml.jackson.databind.JsonNode podMonitor = new com.fasterxml.jackson.databind.ObjectMapper(
                new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree(DEPLOY.resolveSibling("monitoring/podmonitor.yaml").toFile());
        assertThat(podMonitor.path("spec").path("podMetricsEndpoints").get(0).path("honorLabels").asBoolean()).isTrue();
    }

    /** The flags the cache was trained with must be the flags it runs with, or the JVM refuses the cache. */
    @Test
    void theDaemonSetTheChartTheImageAndTheLauncherShareTheAgentsJvmFlags() throws Exception {
        Path repo = DEPLOY.getParent().getParent();
        String flags = Files.readAllLines(repo.resolve("tools/agent-jvm-options")).stream().filter(line -> !line.startsWith("#"))
                .findFirst().orElseThrow();
        Container agent = load("daemonset.yaml", DaemonSet.class).getSpec().getTemplate().getSpec().getContainers().getFirst();
        String daemonSet = agent.getEnv().stream().filter(e -> e.getName().equals("JAVA_TOOL_OPTIONS")).findFirst().orElseThrow().getValue();
        String chart = new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
                .readTree(repo.resolve("deploy/helm/railyard/values.yaml").toFile()).path("agent").path("javaOptions").asText();

        assertThat(flags).contains("-Xmx32m", "-XX:+UseSerialGC").doesNotContain("AOTCache");
        assertThat(daemonSet).isEqualTo(flags + " -XX:AOTCache=/opt/railyard/agent.aot");
        assertThat(chart).isEqualTo(daemonSet);
        assertThat(Files.readString(repo.resolve("Dockerfile"))).contains("$(grep -v '^#' /opt/railyard/train/agent-jvm-options)");
        assertThat(Files.readString(repo.resolve("railyard"))).contains("tools/agent-jvm-options");
    }
}
