package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** deploy/operator: non-root on a read-only root, arguments the operator accepts, and exactly the RBAC it needs. */
class OperatorManifestTest {
    private static final Path DEPLOY = Path.of(System.getProperty("railyard.repo", "..")).resolve("deploy");

    private static <T extends HasMetadata> T load(String file, Class<T> type) throws Exception {
        try (KubernetesClient client = new KubernetesClientBuilder().build(); InputStream in = Files.newInputStream(DEPLOY.resolve(file))) {
            return client.load(in).items().stream().filter(type::isInstance).map(type::cast).findFirst().orElseThrow();
        }
    }

    @Test
    void deploymentRunsAsNonRootOnAReadOnlyRoot() throws Exception {
        Deployment deployment = load("operator/deployment.yaml", Deployment.class);
        Container operator = deployment.getSpec().getTemplate().getSpec().getContainers().getFirst();

        assertThat(deployment.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(operator.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(operator.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(operator.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(operator.getResources().getRequests()).containsKeys("cpu", "memory");
        assertThat(operator.getResources().getLimits()).containsKeys("cpu", "memory");
        String[] args = operator.getArgs().toArray(String[]::new);
        assertThat(Railyard.commandLine(args).parseArgs(args).subcommand().commandSpec().name()).isEqualTo("operator");
    }

    @Test
    void rolesGrantOnlyWhatTheOperatorDoes() throws Exception {
        List<PolicyRule> rules = load("operator/rbac.yaml", ClusterRole.class).getRules();

        assertThat(rules).noneMatch(rule -> rule.getVerbs().contains("*") || rule.getResources().contains("*"));
        assertThat(rules).filteredOn(rule -> rule.getResources().contains("nodes")).singleElement()
                .satisfies(rule -> assertThat(rule.getVerbs()).containsExactly("list", "watch", "patch"));   // a cache of the RDMA nodes; the preflight gate's label
        assertThat(rules).filteredOn(rule -> rule.getResources().contains("configmaps")).isEmpty();
        assertThat(rules).filteredOn(rule -> rule.getResources().contains("secrets")).singleElement() // each job's channel key: never read
                .satisfies(rule -> assertThat(rule.getVerbs()).containsExactly("create"));
        assertThat(rules).filteredOn(rule -> rule.getResources().contains("networkpolicies")).singleElement()
                .satisfies(rule -> assertThat(rule.getVerbs()).containsExactly("create"));
        assertThat(load("operator/rbac.yaml", Role.class).getRules().getFirst().getResources()).containsExactly("leases");
    }

    @Test
    void theShippedKustomizationIncludesTheGeneratedCrd() throws Exception {
        assertThat(Files.readString(DEPLOY.resolve("operator/kustomization.yaml"))).contains("../crds");
        assertThat(Files.readString(DEPLOY.resolve("crds/kustomization.yaml"))).contains("trainingjobs.railyard.io-v1.yml");
        assertThat(DEPLOY.resolve("crds/trainingjobs.railyard.io-v1.yml")).exists();
        assertThat(Files.readString(DEPLOY.resolve("kustomization.yaml"))).contains("operator", "agent", "monitoring");
    }
}
