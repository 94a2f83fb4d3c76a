package io.railyard.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The {@code --kubeconfig} option, and a client from it or from the usual places (KUBECONFIG, ~/.kube/config, in-cluster). */
final class KubeClients {
    @Option(names = "--kubeconfig", description = "Kubeconfig file (default: KUBECONFIG, ~/.kube/config, else in-cluster).")
    Path kubeconfig;

    KubernetesClient connect() {
        return connect(kubeconfig);
    }

    static KubernetesClient connect(Path kubeconfig) {
        if (kubeconfig == null) {
            return new KubernetesClientBuilder().build();
        }
        try {
            return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(kubeconfig))).build();
        } catch (IOException e) {
            throw new Railyard.UsageException("--kubeconfig " + kubeconfig + " cannot be read: " + e.getMessage());
        }
    }
}
