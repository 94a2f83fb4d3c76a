package io.railyard.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A resource's NCCL topology file, put where the kubelet can mount it into containers. The file the config names is
 * the agent's (a ConfigMap mounted in it), which the kubelet cannot see; a copy beside the plugin sockets (the device
 * plugin directory, or the DRA driver's plugin directory), which the DaemonSet mounts at the host's own path, it can.
 */
public final class TopologyFiles {
    private static final Logger LOG = LoggerFactory.getLogger(TopologyFiles.class);

    private TopologyFiles() {}

    /** Whether the node's labels matter: a resource tunes NCCL by the fabric's labels, or takes its topology file by a label. */
    public static boolean labelsNeeded(AgentConfig config) {
        return config.resources().stream().anyMatch(r -> r.environment().tuning() || r.topology() != null && r.topology().nodeLabel() != null);
    }

    /** The node's labels, read once at start where they matter; none when the node cannot be read (said in one line). */
    public static Map<String, String> nodeLabels(io.fabric8.kubernetes.client.KubernetesClient client, String nodeName, AgentConfig config) {
        if (!labelsNeeded(config)) {
            return Map.of();
        }
        try {
            io.fabric8.kubernetes.api.model.Node self = client.nodes().withName(nodeName).get();
            return self == null || self.getMetadata().getLabels() == null ? Map.of() : self.getMetadata().getLabels();
        } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
            LOG.warn("cannot read node {}'s labels ({}): no topology file by node label, no NCCL tuning by the fabric", nodeName,
                    String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
            return Map.of();
        }
    }

    /** The host path of the copy; none when the resource names no file, or none for this node's label value. */
    public static Optional<Path> place(Path pluginDir, ResourceConfig resource, Map<String, String> nodeLabels) {
        if (resource.topology() == null) {
            return Optional.empty();
        }
        Optional<String> file = resource.topology().fileFor(nodeLabels);
        if (file.isEmpty()) {
            LOG.info("{}: no topology file for {}={}: containers get no NCCL_TOPO_FILE", resource.name(), resource.topology().nodeLabel(),
                    nodeLabels.getOrDefault(resource.topology().nodeLabel(), "(no such label, or no API access)"));
            return Optional.empty();
        }
        Path source = Path.of(file.get());
        try {
            String xml = Files.readString(source);
            if (!xml.stripLeading().replaceFirst("^<\\?xml[^>]*>\\s*", "").startsWith("<system")) {
                throw new AgentConfig.ConfigException(resource.name() + ": topology file " + source + " is not NCCL topology XML (no <system>)");
            }
            Path dir = Files.createDirectories(pluginDir.resolve("railyard-topology"));
            Path copy = dir.resolve(resource.socketName().replaceFirst("\\.sock$", ".xml"));
            Path partial = dir.resolve(copy.getFileName() + ".tmp");
            Files.writeString(partial, xml);
            Files.move(partial, copy, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            LOG.info("{}: containers get {} as NCCL_TOPO_FILE", resource.name(), source);
            return Optional.of(copy);
        } catch (IOException e) {
            throw new AgentConfig.ConfigException(resource.name() + ": topology file " + source + " cannot be read (" + e.getClass().getSimpleName()
                    + "): mount the ConfigMap that holds it into the agent");
        }
    }
}
