package io.railyard.agent.dra;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.railyard.agent.AgentConfig;
import io.railyard.agent.PluginServer;
import io.railyard.agent.PortHealth;
import io.railyard.agent.TopologyFiles;
import io.railyard.node.Gpu;
import io.railyard.node.NodeDiscovery;
import io.railyard.node.NodeInventory;
import io.railyard.node.Sysfs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent as a DRA driver: this node's RDMA ports published as ResourceSlices, claims prepared through CDI on
 * {@code <plugins>/<driver>/dra.sock}, registered through {@code <registry>/<driver>-reg.sock}. One loop reads the
 * ports' health: a change rewrites the slices and goes to the health stream; a socket someone deleted is served again;
 * an HCA that appears (a driver reload that renames, hot plug) adds its ports to the pool.
 */
public final class DraAgent implements AutoCloseable {
    public static final String DEFAULT_DRIVER = "rdma.railyard.io";
    private static final Logger LOG = LoggerFactory.getLogger(DraAgent.class);

    /** Where the driver's sockets, CDI specs and checkpoint go, and as whom it publishes. */
    public record Options(String driver, Path pluginsDir, Path registryDir, Path cdiDir, String nodeName, Duration pollInterval) {
        Path pluginDir() {
            return pluginsDir.resolve(driver);
        }

        Path draSocket() {
            return pluginDir().resolve("dra.sock");
        }

        Path registrationSocket() {
            return registryDir.resolve(driver + "-reg.sock");
        }
    }

    private final Options options;
    /** Each resource's extras, replaced whole when the node's labels change. */
    private volatile Map<String, io.railyard.agent.ContainerExtras> extras;
    private final Path root;
    private final AgentConfig config;
    private final Sysfs sysfs;
    /** Replaced, never changed: claims are prepared on other threads. */
    private volatile Map<String, DraDevice> devices;
    private List<String> knownHcas;
    private final SlicePublisher slices;
    private final DraServices.Registrar registrar;
    private final DraServices.V1 v1;
    private final DraServices.Health health;
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("railyard-dra").daemon().factory());
    private volatile Map<String, PortHealth> lastHealth = Map.of();
    private volatile boolean slicesCurrent;
    private PluginServer draServer;
    private PluginServer registrationServer;

    private DraAgent(Options options, Path root, AgentConfig config, List<DraDevice> devices, KubernetesClient client, List<Gpu> gpus,
            Map<String, io.railyard.agent.ContainerExtras> extras) {
        this.options = options;
        this.root = root;
        this.config = config;
        this.sysfs = new Sysfs(root);
        this.knownHcas = hcaNames();
        this.devices = Collections.unmodifiableMap(
                devices.stream().collect(Collectors.toMap(DraDevice::name, Function.identity(), (a, b) -> a, LinkedHashMap::new)));
        this.slices = new SlicePublisher(client, options.driver(), options.nodeName());
        ClaimCheckpoint checkpoint = new ClaimCheckpoint(options.pluginDir().resolve("claims"));
        ClaimPreparer preparer = new ClaimPreparer(client, options.driver(), options.nodeName(), options.cdiDir(), checkpoint, sysfs,
                () -> this.devices, name -> lastHealth.getOrDefault(name, new PortHealth(false, "not read yet")), gpus,
                resource -> this.extras.getOrDefault(resource, io.railyard.agent.ContainerExtras.NONE));
        this.extras = Map.copyOf(extras);
        this.registrar = new DraServices.Registrar(options.driver(), options.draSocket().toString());
        this.v1 = new DraServices.V1(preparer);
        this.health = new DraServices.Health(options.nodeName());
    }

    public static DraAgent create(NodeInventory node, Path root, AgentConfig config, KubernetesClient client, Options options) {
        for (Path dir : List.of(options.pluginsDir(), options.registryDir())) {
            if (!Files.isDirectory(dir)) {
                throw new AgentConfig.ConfigException(dir + " is not a directory: mount the kubelet's plugins and plugins_registry directories"
                        + " (--kubelet-plugins-dir, --plugins-registry-dir)");
            }
        }
        List<DraDevice> devices = DraDevice.forNode(node, config);
        LOG.info("DRA driver {}: {} devices {}", options.driver(), devices.size(), devices.stream().map(DraDevice::name).toList());
        Map<String, io.railyard.agent.ContainerExtras> extras = new LinkedHashMap<>();
        Map<String, String> labels = TopologyFiles.nodeLabels(client, options.nodeName(), config);
        for (io.railyard.agent.ResourceConfig resource : config.resources()) {
            extras.put(resource.name(), io.railyard.agent.ContainerExtras.of(TopologyFiles.place(options.pluginDir(), resource, labels), labels, node));
        }
        return new DraAgent(options, root, config, devices, client, node.gpus(), extras);
    }

    /** The node's labels changed: claims prepared from now on are tuned by the fabric labels they now hold. */
    public void nodeLabelsChanged(Map<String, String> nodeLabels) {
        Map<String, io.railyard.agent.ContainerExtras> next = new LinkedHashMap<>();
        extras.forEach((resource, current) -> next.put(resource, current.withLabels(nodeLabels)));
        extras = Map.copyOf(next);
    }

    public void start() {
        try {
            Files.createDirectories(options.pluginDir());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot create " + options.pluginDir() + ": " + e.getMessage(), e);
        }
        readHealth();
        serveWhereMissing();
        slices.watchDeletions(() -> {
            slicesCurrent = false;
            loop.execute(this::publishSlices);
        });
        long millis = options.pollInterval().toMillis();
        loop.scheduleWithFixedDelay(() -> {
            addHcasThatAppeared();
            readHealth();
            serveWhereMissing();
        }, millis, millis, TimeUnit.MILLISECONDS);
    }

    /** True while both sockets are served and the slices are written. */
    public boolean isServing() {
        return Files.exists(options.draSocket()) && Files.exists(options.registrationSocket()) && slicesCurrent;
    }

    /** Ports of an HCA that was not there before join the pool; one that went away stays, unhealthy, as in the device plugin. */
    private void addHcasThatAppeared() {
        List<String> now = hcaNames();
        if (now.equals(knownHcas)) {
            return;
        }
        knownHcas = now;
        Map<String, DraDevice> grown = new LinkedHashMap<>(devices);
        for (DraDevice device : DraDevice.forNode(NodeDiscovery.discover(root), config)) {
            if (grown.putIfAbsent(device.name(), device) == null) {
                LOG.info("DRA device {} appeared", device.name());
            }
        }
        if (grown.size() > devices.size()) {
            devices = Collections.unmodifiableMap(grown);
            slicesCurrent = false;
        }
    }

    private List<String> hcaNames() {
        return sysfs.list(sysfs.resolve("sys/class/infiniband"));
    }

    private void readHealth() {
        Map<String, PortHealth> now = new LinkedHashMap<>();
        devices.values().forEach(device -> now.put(device.name(), PortHealth.of(sysfs, device.device())));
        if (!now.equals(lastHealth)) {
            now.forEach((name, status) -> {
                PortHealth before = lastHealth.get(name);
                if (before != null && before.healthy() != status.healthy()) {
                    LOG.info("DRA device {} is {}", name, status.healthy() ? "healthy again" : "unhealthy: " + status.reason());
                }
            });
            lastHealth = now;
            slicesCurrent = false;
            health.publish(now);
        }
        if (!slicesCurrent) {
            publishSlices();
        }
    }

    private void publishSlices() {
        try {
            slices.publish(SlicePublisher.devices(List.copyOf(devices.values()), lastHealth));
            slicesCurrent = true;
        } catch (KubernetesClientException e) {
            LOG.warn("cannot write the ResourceSlices ({}): retrying", e.getMessage().lines().findFirst().orElse(""));
        }
    }

    /** The kubelet removes plugin sockets when it restarts; someone may too: serve again where a socket is gone. */
    private synchronized void serveWhereMissing() {
        if (draServer == null || !Files.exists(options.draSocket())) {
            if (draServer != null) {
                draServer.close();
            }
            draServer = PluginServer.start(options.draSocket(), v1, new DraServices.V1beta1(v1), health);
        }
        if (registrationServer == null || !Files.exists(options.registrationSocket())) {
            if (registrationServer != null) {
                registrationServer.close();
            }
            registrationServer = PluginServer.start(options.registrationSocket(), registrar);
        }
    }

    @Override
    public synchronized void close() {
        loop.shutdownNow();
        slices.close();
        health.close();
        if (draServer != null) {
            draServer.close();
        }
        if (registrationServer != null) {
            registrationServer.close();
        }
    }
}
