package io.railyard.cli;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.railyard.diagnose.ClusterAccess;
import io.railyard.diagnose.ClusterView;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Asks the Kubernetes API about one node: its allocatable resources and the RDMA device plugin pods on it.
 * Needs get on nodes, list on daemonsets and pods.
 */
final class ClusterObserver {
    private static final Pattern DEVICE_PLUGIN = Pattern.compile(
            "(?i).*(rdma.*(device|dev)-?plugin|rdma-shared-dp|railyard-agent).*");

    private ClusterObserver() {}

    /** Connects with the first credentials found; none found is not an error, only a skipped check, and a kubeconfig that cannot be used a warning. */
    static ClusterAccess observe(Path kubeconfig, Map<String, String> environment, String nodeName) {
        Config config;
        try {
            config = KubeClients.config(kubeconfig, environment);
        } catch (Railyard.UsageException e) {
            if (kubeconfig != null) {
                throw e; // a file the user named: a mistake to fix now
            }
            return new ClusterAccess.Unreachable(e.getMessage()); // a stale KUBECONFIG costs the kubernetes check, not the node's
        }
        if (config == null) {
            return new ClusterAccess.NoCredentials("no kubeconfig and no in-cluster credentials");
        }
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
            return new ClusterAccess.Observed(view(client, nodeName));
        } catch (KubernetesClientException e) {
            return new ClusterAccess.Unreachable(config.getMasterUrl() + ": " + KubeClients.cause(config, e));
        }
    }

    static ClusterView view(KubernetesClient client, String nodeName) {
        Node node = client.nodes().withName(nodeName).get();
        if (node == null) {
            return new ClusterView(nodeName, false, Map.of(), List.of(), List.of());
        }
        Map<String, String> allocatable = new TreeMap<>();
        if (node.getStatus() != null && node.getStatus().getAllocatable() != null) {
            node.getStatus().getAllocatable().forEach((name, quantity) -> allocatable.put(name, quantity.toString()));
        }
        // Device plugins run as DaemonSets: find those, then their pods on this node by the DaemonSet's own selector.
        List<ClusterView.PluginPod> plugins = new ArrayList<>();
        for (DaemonSet daemonSet : client.apps().daemonSets().inAnyNamespace().list().getItems()) {
            if (!isDevicePlugin(daemonSet.getMetadata()) || daemonSet.getSpec().getSelector() == null) {
                continue;
            }
            client.pods().inNamespace(daemonSet.getMetadata().getNamespace())
                    .withLabels(daemonSet.getSpec().getSelector().getMatchLabels())
                    .list().getItems().stream()
                    .filter(pod -> pod.getSpec() != null && nodeName.equals(pod.getSpec().getNodeName()))
                    .map(pod -> new ClusterView.PluginPod(pod.getMetadata().getNamespace(), pod.getMetadata().getName(),
                            pod.getStatus() == null ? "Unknown" : String.valueOf(pod.getStatus().getPhase()), isReady(pod)))
                    .forEach(plugins::add);
        }
        Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
        return new ClusterView(nodeName, true, allocatable, plugins, rdmaProblems(node), io.railyard.agent.ContainerExtras.fabric(labels));
    }

    /** The agent's RDMA conditions that are True on a Node: {@code RdmaPortDown: mlx5_3 port 1: DOWN/Polling since …}. */
    static List<String> rdmaProblems(Node node) {
        if (node.getStatus() == null || node.getStatus().getConditions() == null) {
            return List.of();
        }
        return node.getStatus().getConditions().stream().filter(c -> c.getType().startsWith("Rdma") && "True".equals(c.getStatus()))
                .map(c -> c.getType() + ": " + c.getMessage()).distinct().toList();
    }

    private static boolean isDevicePlugin(ObjectMeta metadata) {
        if (DEVICE_PLUGIN.matcher(metadata.getName()).matches()) {
            return true;
        }
        Map<String, String> labels = metadata.getLabels();
        return labels != null && labels.values().stream().anyMatch(value -> DEVICE_PLUGIN.matcher(value).matches());
    }

    private static boolean isReady(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
            return false;
        }
        return pod.getStatus().getConditions().stream()
                .filter(c -> "Ready".equals(c.getType()))
                .map(PodCondition::getStatus)
                .anyMatch("True"::equals);
    }

}
