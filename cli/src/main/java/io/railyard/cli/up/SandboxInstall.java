package io.railyard.cli.up;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Railyard installed on a sandbox as the README's install does: the namespace, the CRD, the operator's and the agent's
 * ServiceAccounts and RBAC (the DRA driver's too), from {@code deploy/}; each part runs as its ServiceAccount, with a
 * token from the TokenRequest API, never as admin.
 */
final class SandboxInstall {
    static final String SYSTEM = "railyard-system";
    static final String OPERATOR = "railyard-operator";
    static final String AGENT = "railyard-agent";
    static final String FIELD_MANAGER = "railyard-up";
    private static final List<String> MANIFESTS = List.of("deploy/namespace.yaml", "deploy/crds/trainingjobs.railyard.io-v1.yml",
            "deploy/operator/serviceaccount.yaml", "deploy/operator/rbac.yaml", "deploy/agent/serviceaccount.yaml",
            "deploy/agent/rbac.yaml", "deploy/dra/rbac.yaml", "deploy/dra/deviceclass.yaml");
    private static final long TOKEN_SECONDS = 7 * 24 * 3600L;

    private final KubernetesClient admin;
    private final Path home;

    SandboxInstall(KubernetesClient admin, Path home) {
        this.admin = admin;
        this.home = home;
    }

    void install() {
        for (String manifest : MANIFESTS) {
            try (InputStream in = Files.newInputStream(home.resolve(manifest))) {
                for (HasMetadata object : admin.load(in).items()) {
                    admin.resource(object).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        // the operator's namespace at the strictest level: nothing of Railyard's own needs more
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(SYSTEM)
                .addToLabels("pod-security.kubernetes.io/enforce", "restricted").endMetadata().build())
                .fieldManager(FIELD_MANAGER).serverSideApply();
        admin.resources(CustomResourceDefinition.class).withName("trainingjobs.railyard.io").waitUntilCondition(crd -> crd != null
                && crd.getStatus() != null && crd.getStatus().getConditions().stream()
                        .anyMatch(c -> c.getType().equals("Established") && c.getStatus().equals("True")), 60, TimeUnit.SECONDS);
    }

    /** A namespace for TrainingJobs at the level the README states for them ({@code privileged}). */
    void jobNamespace(String name) {
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name)
                .addToLabels("pod-security.kubernetes.io/enforce", "privileged").endMetadata().build())
                .fieldManager(FIELD_MANAGER).serverSideApply();
    }

    /** A kubeconfig of one of Railyard's ServiceAccounts, written into {@code dir}: its token, the cluster's CA. */
    Path kubeconfigOf(String account, Path dir, Path caFile) {
        String token = admin.serviceAccounts().inNamespace(SYSTEM).withName(account)
                .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(TOKEN_SECONDS).endSpec().build())
                .getStatus().getToken();
        String kubeconfig = """
                apiVersion: v1
                kind: Config
                clusters:
                - name: railyard-up
                  cluster: {server: "%s", certificate-authority: "%s"}
                users:
                - name: %s
                  user: {token: "%s"}
                contexts:
                - name: railyard-up
                  context: {cluster: railyard-up, user: %s}
                current-context: railyard-up
                """.formatted(admin.getConfiguration().getMasterUrl(), caFile, account, token, account);
        Path file = dir.resolve(account + ".kubeconfig");
        try {
            Files.writeString(file, kubeconfig);
            Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }
}
