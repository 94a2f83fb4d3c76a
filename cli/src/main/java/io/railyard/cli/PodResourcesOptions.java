package io.railyard.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.agent.AgentConfig;
import io.railyard.agent.podresources.PodIdentities;
import io.railyard.agent.podresources.PodResourcesClient;
import io.railyard.agent.podresources.PortAllocationCollector;
import io.railyard.agent.podresources.PortHolders;
import io.railyard.node.NodeInventory;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import picocli.CommandLine.Option;

/** The options of the ports' attribution to pods through the kubelet's PodResources API, shared by agent and exporter. */
final class PodResourcesOptions {
    @Option(names = "--pod-resources-socket", description = "The kubelet's PodResources socket, to say which pod holds each port"
            + " (agent default: /var/lib/kubelet/pod-resources/kubelet.sock; exporter default: none).")
    Path socket;

    @Option(names = "--no-pod-resources", description = "Do not attribute ports to pods.")
    boolean disabled;

    @Option(names = "--pod-resources-max-age-ms", defaultValue = "30000", description = "How long one listing from the kubelet serves"
            + " scrapes when no pod of the node changed and its socket stayed (default and most: ${DEFAULT-VALUE}; 0: every scrape asks).")
    long maxAgeMillis;

    /** The collector and what it holds open; {@link #close()} releases them. */
    record Attribution(PortAllocationCollector collector, PodResourcesClient kubelet, PodIdentities identities) implements AutoCloseable {
        @Override
        public void close() {
            kubelet.close();
            if (identities != null) {
                identities.close();
            }
        }
    }

    /**
     * The attribution, or null when it is off: the socket given, else {@code defaultSocket}, none when that is null.
     * Pods get their TrainingJob and rank when {@code client} is not null.
     */
    Attribution start(Path defaultSocket, NodeInventory node, AgentConfig config, String draDriver, KubernetesClient client, String nodeName) {
        Path chosen = socket != null ? socket : defaultSocket;
        if (disabled || chosen == null) {
            return null;
        }
        long longest = PortAllocationCollector.LONGEST_MAX_AGE_SECONDS * 1000;
        if (maxAgeMillis < 0 || maxAgeMillis > longest) {
            throw new Railyard.UsageException("--pod-resources-max-age-ms " + maxAgeMillis + " is out of range: use 0 to " + longest
                    + " (a kubelet that stops answering must be seen within it)");
        }
        PodResourcesClient kubelet = new PodResourcesClient(chosen);
        PodIdentities identities = client == null || nodeName == null || nodeName.isBlank() ? null : PodIdentities.watch(client, nodeName);
        PortAllocationCollector collector = new PortAllocationCollector(kubelet, PortHolders.forNode(node, config, draDriver),
                (namespace, pod) -> identities == null ? PodIdentities.Identity.NONE : identities.of(namespace, pod),
                Clock.systemUTC(), Duration.ofMillis(maxAgeMillis));
        if (identities != null) {
            identities.onChange(collector::markStale);
        }
        return new Attribution(collector, kubelet, identities);
    }
}
