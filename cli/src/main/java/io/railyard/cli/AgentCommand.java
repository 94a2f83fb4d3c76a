package io.railyard.cli;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.railyard.agent.AgentConfig;
import io.railyard.agent.DevicePluginAgent;
import io.railyard.agent.dra.DraAgent;
import io.railyard.agent.DevicePluginCollector;
import io.railyard.agent.NodeLabeler;
import io.railyard.agent.PluginDevice;
import io.railyard.agent.health.NodeConditionCollector;
import io.railyard.agent.health.NodeHealthMonitor;
import io.railyard.agent.podresources.PodResourcesClient;
import io.railyard.node.NodeDiscovery;
import io.railyard.node.NodeInventory;
import io.railyard.node.Port;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code railyard agent}: the node agent run by the DaemonSet on every GPU node. */
@Command(
        name = "agent",
        mixinStandardHelpOptions = true,
        description = "Run the node agent: the RDMA device plugin for the kubelet, node labels, and a health endpoint.")
final class AgentCommand implements Callable<Integer> {
    @Mixin
    HostRoot host = new HostRoot();

    @Option(names = "--device-plugin-dir", defaultValue = "/var/lib/kubelet/device-plugins",
            description = "The kubelet's device plugin directory: kubelet.sock is there, and the plugin's sockets go there (default: ${DEFAULT-VALUE}).")
    Path pluginDir;

    @Option(names = "--config", description = "Agent configuration (YAML): the resources to advertise (default: one rdma/rdma with every port).")
    Path config;

    @Option(names = "--node-name", defaultValue = "${env:NODE_NAME}", description = "This node's Kubernetes name, for its labels (default: NODE_NAME).")
    String nodeName;

    @Option(names = "--poll-interval-ms", defaultValue = "500", description = "How often port health is read from sysfs (default: ${DEFAULT-VALUE}).")
    int pollIntervalMillis;

    @Option(names = "--health-address", defaultValue = "0.0.0.0:8081", description = "HOST:PORT of /healthz (default: ${DEFAULT-VALUE}).")
    String healthAddress;

    @Option(names = "--metrics-address", description = "HOST:PORT of /metrics for Prometheus (default: none, no metrics).")
    String metricsAddress;

    @Option(names = "--no-kubernetes", description = "Do not label the node through the Kubernetes API.")
    boolean noKubernetes;

    @Option(names = "--no-device-plugin", description = "Do not serve the kubelet's device plugin API: node labels, /metrics and /healthz only.")
    boolean noDevicePlugin;

    @Option(names = "--dra", description = "Also be a DRA driver: publish ResourceSlices, prepare ResourceClaims through CDI.")
    boolean dra;

    @Option(names = "--dra-driver-name", defaultValue = DraAgent.DEFAULT_DRIVER, description = "The DRA driver's name (default: ${DEFAULT-VALUE}).")
    String draDriverName;

    @Option(names = "--kubelet-plugins-dir", defaultValue = "/var/lib/kubelet/plugins",
            description = "Where the DRA driver's socket and checkpoint go, under its name (default: ${DEFAULT-VALUE}).")
    Path kubeletPluginsDir;

    @Option(names = "--plugins-registry-dir", defaultValue = "/var/lib/kubelet/plugins_registry",
            description = "The kubelet's plugin registration directory (default: ${DEFAULT-VALUE}).")
    Path pluginsRegistryDir;

    @Option(names = "--cdi-dir", defaultValue = "/var/run/cdi", description = "Where the claims' CDI specs go (default: ${DEFAULT-VALUE}).")
    Path cdiDir;

    @Mixin
    PodResourcesOptions podResources = new PodResourcesOptions();

    @Option(names = "--kubeconfig", description = "Kubeconfig file (default: KUBECONFIG, ~/.kube/config, else in-cluster).")
    Path kubeconfig;

    @Override
    public Integer call() throws Exception {
        ServiceLog.railyardAtInfo();
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install(); // grpc and Netty log through java.util.logging
        AgentConfig agentConfig = loadConfig();
        if (pollIntervalMillis < 50) {
            throw new Railyard.UsageException("--poll-interval-ms " + pollIntervalMillis + " is too short: use 50 or more");
        }
        InetSocketAddress healthSocket = HostPort.parse("--health-address", healthAddress);
        InetSocketAddress metricsSocket = metricsAddress == null ? null : HostPort.parse("--metrics-address", metricsAddress);
        Path root = host.checked();
        NodeInventory node = NodeDiscovery.discover(root);
        Map<String, String> labels = nodeLabels(agentConfig);
        DevicePluginAgent agent = noDevicePlugin ? null : devicePlugin(node, root, agentConfig, labels);
        DraAgent draAgent = dra ? draAgent(node, root, agentConfig) : null;
        List<Port> ports = advertisedPorts(node, agentConfig);
        NodeHealthMonitor nodeHealth = nodeHealth(root, ports, agent, agentConfig);
        Termination termination = Termination.listen();
        // The listeners first: an address that cannot be listened on stops the agent before it has made its sockets.
        HttpServer health = HostPort.listen("--health-address", healthSocket, address -> serveHealth(address, agent, draAgent));
        String resource = agentConfig.resources().getFirst().name();
        List<MultiCollector> collectors = new ArrayList<>();
        if (agent != null) {
            collectors.add(new DevicePluginCollector(agent));
        }
        if (nodeHealth != null) {
            collectors.add(new NodeConditionCollector(nodeHealth));
        }
        PodResourcesOptions.Attribution attribution = metricsSocket == null ? null : podResources.start(PodResourcesClient.DEFAULT_SOCKET, node,
                agentConfig, dra ? draDriverName : "", noKubernetes ? null : KubeClients.client(kubeconfig), nodeName);
        if (attribution != null) {
            collectors.add(attribution.collector());
        }
        NodeMetrics metrics = metricsSocket == null ? null : HostPort.listen("--metrics-address", metricsSocket,
                address -> NodeMetrics.start(address, root, resource, agentConfig.metrics().hardwareCounters(), collectors.toArray(MultiCollector[]::new)));
        if (agent != null) {
            agent.start();
        }
        if (draAgent != null) {
            draAgent.start();
        }
        if (!noKubernetes) {
            Thread.ofVirtual().name("railyard-labels").start(() -> label(node, ports));
        }
        io.railyard.agent.FabricLabelWatch fabricLabels = fabricLabels(agentConfig, labels, agent, draAgent);
        if (nodeHealth != null && agent != null) {
            agent.afterEachPoll(nodeHealth::step); // one thread woken per poll, not two
        } else if (nodeHealth != null) {
            nodeHealth.start(Duration.ofMillis(pollIntervalMillis));
        }
        termination.await();
        log().info("stopping");
        if (fabricLabels != null) {
            fabricLabels.close();
        }
        if (nodeHealth != null) {
            nodeHealth.close();
        }
        if (metrics != null) {
            metrics.close();
        }
        if (attribution != null) {
            attribution.close();
        }
        health.stop(0);
        if (agent != null) {
            agent.close();
        }
        if (draAgent != null) {
            draAgent.close();
        }
        return 0;
    }

    /** Not a static field: picocli constructs every subcommand, and starting the logging would cost every command. */
    private static Logger log() {
        return LoggerFactory.getLogger(AgentCommand.class);
    }

    /** A watch of this node's fabric labels, so that a fabric labelled after the agent started tunes NCCL; none without API access. */
    private io.railyard.agent.FabricLabelWatch fabricLabels(AgentConfig agentConfig, Map<String, String> labels, DevicePluginAgent agent,
            DraAgent draAgent) {
        if (!io.railyard.agent.TopologyFiles.labelsNeeded(agentConfig) || noKubernetes || nodeName == null || nodeName.isBlank()
                || agent == null && draAgent == null) {
            return null;
        }
        KubernetesClient client = KubeClients.client(kubeconfig);
        if (client == null) {
            return null;
        }
        try {
            return io.railyard.agent.FabricLabelWatch.start(client, nodeName, labels, changed -> {
                if (agent != null) {
                    agent.nodeLabelsChanged(changed);
                }
                if (draAgent != null) {
                    draAgent.nodeLabelsChanged(changed);
                }
            });
        } catch (RuntimeException e) {
            log().warn("cannot watch node {}'s labels ({}): NCCL is tuned by the labels it had at start", nodeName,
                    String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
            return null;
        }
    }

    private DevicePluginAgent devicePlugin(NodeInventory node, Path root, AgentConfig agentConfig, Map<String, String> labels) {
        try {
            return DevicePluginAgent.create(node, root, pluginDir, agentConfig, Duration.ofMillis(pollIntervalMillis), labels);
        } catch (AgentConfig.ConfigException e) {
            throw new Railyard.UsageException(e.getMessage());
        }
    }

    /** The Node's labels, read where they matter (NCCL's tuning by the fabric, a topology file by label); none without API access. */
    private Map<String, String> nodeLabels(AgentConfig agentConfig) {
        if (!io.railyard.agent.TopologyFiles.labelsNeeded(agentConfig) || noKubernetes || nodeName == null || nodeName.isBlank()) {
            return Map.of();
        }
        try (KubernetesClient client = KubeClients.connect(kubeconfig)) {
            return io.railyard.agent.TopologyFiles.nodeLabels(client, nodeName, agentConfig);
        } catch (KubeClients.ClusterException | Railyard.UsageException e) {
            log().warn("cannot read node {}'s labels ({}): no topology file by node label, no NCCL tuning by the fabric", nodeName,
                    e.getMessage().lines().findFirst().orElse(""));
            return Map.of();
        }
    }

    private DraAgent draAgent(NodeInventory node, Path root, AgentConfig agentConfig) {
        if (noKubernetes || nodeName == null || nodeName.isBlank()) {
            throw new Railyard.UsageException("--dra publishes this node's ResourceSlices and reads its ResourceClaims: it needs the Kubernetes API"
                    + " (no --no-kubernetes) and --node-name or NODE_NAME");
        }
        try {
            return DraAgent.create(node, root, agentConfig, KubeClients.connect(kubeconfig), new DraAgent.Options(draDriverName,
                    kubeletPluginsDir, pluginsRegistryDir, cdiDir, nodeName, Duration.ofMillis(pollIntervalMillis)));
        } catch (AgentConfig.ConfigException e) {
            throw new Railyard.UsageException(e.getMessage());
        }
    }

    /** The Node's RDMA conditions, where there is a cluster and a node name; a cluster not reachable now is tried again each poll. */
    private NodeHealthMonitor nodeHealth(Path root, List<Port> ports, DevicePluginAgent agent, AgentConfig agentConfig) {
        if (noKubernetes || !agentConfig.nodeHealth().enabled()) {
            return null;
        }
        if (nodeName == null || nodeName.isBlank()) {
            log().warn("no --node-name and no NODE_NAME: running without the node's RDMA conditions");
            return null;
        }
        KubernetesClient client = KubeClients.client(kubeconfig);
        if (client == null) {
            log().warn("no Kubernetes credentials: running without the node's RDMA conditions");
            return null;
        }
        return new NodeHealthMonitor(root, ports, agent == null ? Map::of : agent::portHealth, agentConfig.nodeHealth(), client, nodeName,
                Clock.systemUTC());
    }

    private AgentConfig loadConfig() {
        try {
            return config == null ? AgentConfig.defaults() : AgentConfig.load(config);
        } catch (AgentConfig.ConfigException e) {
            throw new Railyard.UsageException("--config " + e.getMessage());
        }
    }

    private static List<Port> advertisedPorts(NodeInventory node, AgentConfig agentConfig) {
        Set<String> taken = new HashSet<>();
        return agentConfig.resources().stream()
                .flatMap(resource -> PluginDevice.forResource(node, resource, taken).stream())
                .map(PluginDevice::port).distinct().toList();
    }

    private void label(NodeInventory node, List<Port> ports) {
        Map<String, String> labels = NodeLabeler.labels(node, ports);
        if (nodeName == null || nodeName.isBlank()) {
            log().warn("no --node-name and no NODE_NAME: running without node labels");
            return;
        }
        try (KubernetesClient client = KubeClients.connect(kubeconfig)) {
            NodeLabeler.apply(client, nodeName, labels);
            log().info("labelled node {}: {}", nodeName, labels);
        } catch (KubernetesClientException | KubeClients.ClusterException | Railyard.UsageException e) {
            log().warn("no Kubernetes API access ({}): running without node labels", e.getMessage().lines().findFirst().orElse(""));
        }
    }

    /** Healthy while the device plugin is served and registered and the DRA driver serves; always, when there is neither. */
    private static HttpServer serveHealth(InetSocketAddress address, DevicePluginAgent agent, DraAgent draAgent) throws IOException {
        HttpServer server = HttpServer.create(address, 0);
        server.createContext("/healthz", exchange -> {
            String problem = agent != null && !agent.isServingAndRegistered() ? "not registered with the kubelet\n"
                    : draAgent != null && !draAgent.isServing() ? "the DRA driver's sockets or ResourceSlices are not in place\n" : null;
            boolean ok = problem == null;
            byte[] body = (ok ? "ok\n" : problem).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(ok ? 200 : 503, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        return server;
    }
}
