package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceConstraint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.railyard.agent.dra.DraAgent;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** deploy/dra and examples/dra: names that match the driver, least privilege, and claims that pair what they say. */
class DraManifestTest {
    private static final Path REPO = Path.of(System.getProperty("railyard.repo", ".."));

    private static <T extends HasMetadata> T load(Path file, Class<T> type) throws Exception {
        try (KubernetesClient client = new KubernetesClientBuilder().build(); InputStream in = Files.newInputStream(file)) {
            return client.load(in).items().stream().filter(type::isInstance).map(type::cast).findFirst().orElseThrow();
        }
    }

    @Test
    void theDeviceClassSelectsTheDriversHealthyDevices() throws Exception {
        DeviceClass deviceClass = load(REPO.resolve("deploy/dra/deviceclass.yaml"), DeviceClass.class);

        assertThat(deviceClass.getMetadata().getName()).isEqualTo(DraAgent.DEFAULT_DRIVER);
        assertThat(deviceClass.getSpec().getSelectors()).singleElement().satisfies(selector -> assertThat(selector.getCel().getExpression())
                .isEqualTo("device.driver == \"rdma.railyard.io\" && device.attributes[\"rdma.railyard.io\"].healthy"));
    }

    @Test
    void theAgentMayWriteSlicesAndOnlyReadClaimsAndNodes() throws Exception {
        List<PolicyRule> rules = load(REPO.resolve("deploy/dra/rbac.yaml"), ClusterRole.class).getRules();

        assertThat(rules).noneMatch(rule -> rule.getVerbs().contains("*") || rule.getResources().contains("*"));
        assertThat(rules).filteredOn(rule -> rule.getResources().contains("resourceclaims")).singleElement()
                .satisfies(rule -> assertThat(rule.getVerbs()).containsExactly("get"));
        assertThat(rules).filteredOn(rule -> rule.getResources().contains("nodes")).singleElement()
                .satisfies(rule -> assertThat(rule.getVerbs()).containsExactly("get"));
        assertThat(rules).filteredOn(rule -> rule.getResources().contains("resourceslices")).singleElement()
                .satisfies(rule -> assertThat(rule.getVerbs()).doesNotContain("patch", "deletecollection"));
    }

    @Test
    void thePatchedArgumentsAreOnesTheAgentAccepts() throws Exception {
        io.fabric8.kubernetes.api.model.apps.DaemonSet daemonSet = load(REPO.resolve("deploy/agent/daemonset.yaml"),
                io.fabric8.kubernetes.api.model.apps.DaemonSet.class);
        List<String> args = new ArrayList<>(daemonSet.getSpec().getTemplate().getSpec().getContainers().getFirst().getArgs());
        String patch = Files.readString(REPO.resolve("deploy/dra/daemonset-dra.yaml"));
        assertThat(patch).contains("value: --dra", "mountPath: /var/lib/kubelet/plugins}", "mountPath: /var/lib/kubelet/plugins_registry}",
                "mountPath: /var/run/cdi}");
        args.add("--dra");

        String[] argv = args.toArray(String[]::new);
        assertThat(Railyard.commandLine(argv).parseArgs(argv).subcommand().matchedOption("--dra")).isNotNull();
    }

    @Test
    void theExampleClaimsAskForWhatTheySay() throws Exception {
        ResourceClaimTemplate four = load(REPO.resolve("examples/dra/four-nics.yaml"), ResourceClaimTemplate.class);
        assertThat(four.getSpec().getSpec().getDevices().getRequests()).singleElement().satisfies(request -> {
            assertThat(request.getExactly().getDeviceClassName()).isEqualTo(DraAgent.DEFAULT_DRIVER);
            assertThat(request.getExactly().getCount()).isEqualTo(4L);
        });

        var pairs = load(REPO.resolve("examples/dra/gpu-nic-pairs.yaml"), ResourceClaimTemplate.class).getSpec().getSpec().getDevices();
        assertThat(pairs.getRequests()).extracting(DeviceRequest::getName).containsExactly("gpu0", "nic0", "gpu1", "nic1");
        assertThat(pairs.getConstraints()).extracting(DeviceConstraint::getRequests).containsExactly(List.of("gpu0", "nic0"), List.of("gpu1", "nic1"));
        assertThat(pairs.getConstraints()).allSatisfy(c -> assertThat(c.getMatchAttribute()).isEqualTo("resource.kubernetes.io/pcieRoot"));
    }

    @Test
    void draWithoutTheApiIsAOneLineUsageError() {
        CommandRun run = CommandRun.of("agent", "--root", REPO.resolve("examples/nodes/roce-8gpu").toString(), "--no-device-plugin", "--dra",
                "--no-kubernetes", "--health-address", "127.0.0.1:0");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("agent: --dra publishes this node's ResourceSlices and reads its ResourceClaims: it needs the Kubernetes API"
                + " (no --no-kubernetes) and --node-name or NODE_NAME\n");
    }
}
