package io.railyard.e2e;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Railyard installed as the README says: the CRD from {@code deploy/crds}, the chart's service accounts and RBAC
 * ({@code helm template}, applied with {@code kubectl apply --server-side}), {@code railyard-system} at the
 * {@code restricted} level, and the operator running from Railyard's jar as its ServiceAccount (a TokenRequest token).
 */
final class Installation implements AutoCloseable {
    static final String SYSTEM = "railyard-system";
    static final String OPERATOR_ACCOUNT = "railyard-operator";
    static final String AGENT_ACCOUNT = "railyard-agent";
    static final Path JAR = ControlPlane.REPO.resolve("cli/target/railyard.jar");
    /** The chart's kinds a cluster without Railyard's image needs: who the parts are, what they may do, the DRA device class. */
    private static final Set<String> IDENTITY_KINDS = Set.of("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding",
            "DeviceClass");

    final ControlPlane cluster;
    final RailyardProcess operator;

    private Installation(ControlPlane cluster, RailyardProcess operator) {
        this.cluster = cluster;
        this.operator = operator;
    }

    static Installation install(ControlPlane cluster) {
        Assertions.assertTrue(Files.isRegularFile(JAR), JAR + " is missing: the e2e tier runs after ./mvnw package built it");
        cluster.admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(SYSTEM)
                .addToLabels("pod-security.kubernetes.io/enforce", "restricted").endMetadata().build()).serverSideApply();
        apply(cluster, null, "-k", ControlPlane.REPO.resolve("deploy/crds").toString());
        apply(cluster, chartIdentities(), "-f", "-");
        cluster.kubectl(null, "wait", "--for", "condition=Established", "crd/trainingjobs.railyard.io", "--timeout", "60s");
        Path kubeconfig = kubeconfigOf(cluster, OPERATOR_ACCOUNT);
        RailyardProcess operator = RailyardProcess.start("operator", "operator", "--kubeconfig", kubeconfig.toString(),
                "--leader-election-namespace", SYSTEM);
        Awaitility.await("the operator leads (Lease railyard-operator)").atMost(Duration.ofSeconds(60))
                .until(() -> cluster.admin.leases().inNamespace(SYSTEM).withName("railyard-operator").get() != null);
        return new Installation(cluster, operator);
    }

    /** A namespace for TrainingJobs at the level the README states ({@code privileged}), its default account made. */
    String jobNamespace(String name) {
        cluster.admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name)
                .addToLabels("pod-security.kubernetes.io/enforce", "privileged").endMetadata().build()).serverSideApply();
        Awaitility.await("the service account controller makes " + name + "/default").atMost(Duration.ofSeconds(30))
                .until(() -> cluster.admin.serviceAccounts().inNamespace(name).withName("default").get() != null);
        return name;
    }

    /** {@code railyard submit -f -} of this YAML, as a user runs it; a refusal fails the test with what submit said. */
    void submit(String yaml) {
        Processes.Result submitted = RailyardProcess.run(cluster, yaml, "submit", "-f", "-");
        Assertions.assertEquals(0, submitted.exitCode(), submitted.err());
    }

    /** {@code railyard agent} for a node on a host tree, as its ServiceAccount, with no kubelet to serve (the extra options after). */
    RailyardProcess agent(String node, Path root, String... extra) {
        List<String> args = new ArrayList<>(List.of("agent", "--no-device-plugin", "--root", root.toString(), "--node-name", node,
                "--health-address", "127.0.0.1:" + freePort(), "--kubeconfig", kubeconfigOf(cluster, AGENT_ACCOUNT).toString()));
        args.addAll(List.of(extra));
        return RailyardProcess.start("agent-" + node, args.toArray(String[]::new));
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A kubeconfig of a ServiceAccount of {@code railyard-system}: a token from the TokenRequest API, the cluster's CA. */
    static Path kubeconfigOf(ControlPlane cluster, String account) {
        TokenRequest request = cluster.admin.serviceAccounts().inNamespace(SYSTEM).withName(account)
                .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(24 * 3600L).endSpec().build());
        String server = cluster.admin.getConfiguration().getMasterUrl();
        String kubeconfig = """
                apiVersion: v1
                kind: Config
                clusters:
                - name: railyard
                  cluster: {server: "%s", certificate-authority: "%s"}
                users:
                - name: %s
                  user: {token: "%s"}
                contexts:
                - name: railyard
                  context: {cluster: railyard, user: %s}
                current-context: railyard
                """.formatted(server, cluster.dir.resolve("pki/ca.crt"), account, request.getStatus().getToken(), account);
        Path file = cluster.dir.resolve(account + ".kubeconfig");
        try {
            Files.writeString(file, kubeconfig);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return file;
    }

    /** The chart's ServiceAccounts, RBAC and DeviceClass, as {@code helm template} renders them with the agent's DRA driver on. */
    private static String chartIdentities() {
        Path helm = ControlPlane.REPO.resolve("target/tools/helm/helm");
        if (!Files.isExecutable(helm)) {
            String message = helm + " is missing: tools/fetch-helm fetches it (.ci/run does)";
            if (System.getenv("RAILYARD_CI") != null) {
                Assertions.fail(message);
            }
            Assumptions.abort(message);
        }
        Processes.Result rendered = Processes.run(ControlPlane.REPO, 60, helm.toString(), "template", "railyard",
                "deploy/helm/railyard", "--namespace", SYSTEM, "--set", "agent.dra.enabled=true");
        Assertions.assertEquals(0, rendered.exitCode(), rendered.err());
        List<HasMetadata> objects = new ArrayList<>();
        for (String document : rendered.out().split("(?m)^---\\s*$")) {
            if (document.contains("kind:")) {
                objects.add(Serialization.unmarshal(new ByteArrayInputStream(document.getBytes(StandardCharsets.UTF_8))));
            }
        }
        return objects.stream().filter(o -> IDENTITY_KINDS.contains(o.getKind()))
                .map(Serialization::asYaml).collect(Collectors.joining("\n---\n"));
    }

    private static void apply(ControlPlane cluster, String stdin, String... args) {
        List<String> command = new ArrayList<>(List.of("apply", "--server-side", "--field-manager", "railyard-install"));
        command.addAll(List.of(args));
        Processes.Result applied = cluster.kubectl(stdin, command.toArray(String[]::new));
        Assertions.assertEquals(0, applied.exitCode(), "kubectl apply: " + applied.err());
    }

    @Override
    public void close() {
        operator.close();
    }
}
