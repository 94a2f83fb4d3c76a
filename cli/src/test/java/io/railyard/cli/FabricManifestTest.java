package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** deploy/fabric: a CronJob the fabric command accepts, on an InfiniBand node, with no capability and the RBAC of what it writes. */
class FabricManifestTest {
    private static final Path DEPLOY = Path.of(System.getProperty("railyard.repo", "..")).resolve("deploy/fabric");

    private static <T extends HasMetadata> List<T> load(String file, Class<T> type) throws Exception {
        try (KubernetesClient client = new KubernetesClientBuilder().build(); InputStream in = Files.newInputStream(DEPLOY.resolve(file))) {
            return client.load(in).items().stream().filter(type::isInstance).map(type::cast).toList();
        }
    }

    @Test
    void cronJobRunsTheFabricCommandThroughAnAllocatedPortWithoutCapabilities() throws Exception {
        CronJob cronJob = load("cronjob.yaml", CronJob.class).getFirst();
        Container fabric = cronJob.getSpec().getJobTemplate().getSpec().getTemplate().getSpec().getContainers().getFirst();
        SecurityContext security = fabric.getSecurityContext();

        String[] args = fabric.getArgs().toArray(String[]::new);
        CommandLine.ParseResult parsed = Railyard.commandLine(args).parseArgs(args);
        assertThat(parsed.subcommand().commandSpec().name()).isEqualTo("fabric");
        assertThat(fabric.getArgs()).contains("--labels", "--hyper-nodes", "--apply", "--exit-zero");
        assertThat(fabric.getResources().getLimits()).as("the agent's shared probe, not a port a training job would wait for")
                .containsKey("railyard.io/fabric-probe").doesNotContainKey("rdma/rdma");
        assertThat(cronJob.getSpec().getConcurrencyPolicy()).isEqualTo("Forbid");
        assertThat(cronJob.getSpec().getJobTemplate().getSpec().getTemplate().getSpec().getNodeSelector())
                .containsEntry("railyard.io/rdma.link-layer", "InfiniBand");
        assertThat(security.getAllowPrivilegeEscalation()).isFalse();
        assertThat(security.getPrivileged()).isFalse();
        assertThat(security.getReadOnlyRootFilesystem()).isTrue();
        assertThat(security.getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(security.getCapabilities().getAdd()).isNullOrEmpty();
    }

    @Test
    void roleGrantsOnlyWhatApplyWrites() throws Exception {
        List<PolicyRule> rules = load("rbac.yaml", ClusterRole.class).getFirst().getRules();

        assertThat(rules).extracting(r -> r.getApiGroups().getFirst() + "/" + r.getResources().getFirst() + " " + r.getVerbs()).containsExactly(
                "/nodes [get, patch]",
                "topology.volcano.sh/hypernodes [get, list, create, update, delete]",
                "kueue.x-k8s.io/topologies [get, create, update]");
    }
}
