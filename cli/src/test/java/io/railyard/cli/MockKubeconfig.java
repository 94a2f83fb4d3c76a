package io.railyard.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A kubeconfig that points the command line at the fabric8 mock API server of a test. */
public final class MockKubeconfig {
    private MockKubeconfig() {}

    public static Path write(Path dir, KubernetesClient client) throws IOException {
        return Files.writeString(dir.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters:
                - name: mock
                  cluster:
                    server: %s
                    insecure-skip-tls-verify: true
                contexts:
                - name: mock
                  context: {cluster: mock, user: tester, namespace: ns}
                current-context: mock
                users:
                - name: tester
                  user: {token: secret}
                """.formatted(client.getMasterUrl()));
    }
}
