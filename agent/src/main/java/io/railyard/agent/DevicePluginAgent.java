package io.railyard.agent;

import io.grpc.StatusRuntimeException;
import io.railyard.node.NodeDiscovery;
import io.railyard.node.NodeInventory;
import io.railyard.node.Sysfs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one device plugin per configured resource: serves each on its socket, registers it with the kubelet, polls
 * port health, and registers again when the kubelet restarts (it re-creates {@code kubelet.sock} and removes the
 * plugins' sockets), noticed through the directory's inotify events rather than by polling.
 */
public final class DevicePluginAgent implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DevicePluginAgent.class);
    private static final Duration REGISTER_RETRY = Duration.ofSeconds(1);

    private final Path pluginDir;
    private final Path root;
    private final List<RdmaDevicePlugin> plugins;
    private final Duration pollInterval;
    private List<String> knownHcas;
    private final Map<String, PluginServer> servers = new ConcurrentHashMap<>();
    private final Set<String> registered = ConcurrentHashMap.newKeySet();
    private final Set<String> failingRegistration = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("railyard-agent").daemon().factory());
    private final List<Runnable> afterEachPoll = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile Merged merged;
    private WatchService watchService;
    private Thread watcher;

    private DevicePluginAgent(Path pluginDir, Path root, List<RdmaDevicePlugin> plugins, Duration pollInterval) {
        this.pluginDir = pluginDir;
        this.root = root;
        this.plugins = plugins;
        this.pollInterval = pollInterval;
        this.knownHcas = hcaNames();
    }

    /** Builds the plugins for a node; a port goes to the first resource whose selector matches it. */
    public static DevicePluginAgent create(NodeInventory node, Path root, Path pluginDir, AgentConfig config, Duration pollInterval) {
        return create(node, root, pluginDir, config, pollInterval, Map.of());
    }

    /**
     * @param nodeLabels the node's labels, for NCCL's tuning by the fabric and for resources whose topology file goes by one
     *     (empty without API access)
     */
    public static DevicePluginAgent create(NodeInventory node, Path root, Path pluginDir, AgentConfig config, Duration pollInterval,
            Map<String, String> nodeLabels) {
        if (!Files.isDirectory(pluginDir)) {
            throw new AgentConfig.ConfigException("--device-plugin-dir " + pluginDir + " is not a directory: "
                    + "mount the kubelet's device plugin directory (/var/lib/kubelet/device-plugins)");
        }
        Sysfs sysfs = new Sysfs(root);
        Set<String> taken = new HashSet<>();
        List<RdmaDevicePlugin> plugins = new ArrayList<>();
        for (ResourceConfig resource : config.resources()) {
            List<PluginDevice> devices = PluginDevice.forResource(node, resource, taken);
            LOG.info("{}: {} devices {}", resource.name(), devices.size(), devices.stream().map(PluginDevice::id).toList());
            plugins.add(new RdmaDevicePlugin(resource, sysfs, devices, node.gpus(),
                    ContainerExtras.of(TopologyFiles.place(pluginDir, resource, nodeLabels), nodeLabels, node)));
        }
        return new DevicePluginAgent(pluginDir, root, plugins, pollInterval);
    }

    /** The node's labels changed: each resource tunes NCCL by the fabric labels they now hold. */
    public void nodeLabelsChanged(Map<String, String> nodeLabels) {
        plugins.forEach(plugin -> plugin.retune(nodeLabels));
    }

    public void start() {
        plugins.forEach(this::serve);
        startWatching();
        if (Files.exists(pluginDir.resolve(KubeletClient.KUBELET_SOCKET))) {
            plugins.forEach(plugin -> scheduler.execute(() -> register(plugin)));
        } else {
            LOG.warn("no {} in {} yet: registering when the kubelet creates it", KubeletClient.KUBELET_SOCKET, pluginDir);
        }
        long millis = pollInterval.toMillis();
        scheduler.scheduleWithFixedDelay(() -> {
            rescanWhenHcasChange();
            plugins.forEach(RdmaDevicePlugin::refreshHealth);
            afterEachPoll.forEach(Runnable::run);
        }, millis, millis, TimeUnit.MILLISECONDS);
    }

    /** Runs a step after each of the plugins' health polls, on the same thread (node health, which reads what it read). */
    public void afterEachPoll(Runnable step) {
        afterEachPoll.add(step);
    }

    /**
     * An HCA that appears after start (a driver reload, hot plug) has its ports advertised by the first resource that
     * selects them; the devices already advertised keep their allocations. One that goes away stays, unhealthy.
     */
    private void rescanWhenHcasChange() {
        List<String> now = hcaNames();
        if (now.equals(knownHcas)) {
            return;
        }
        knownHcas = now;
        NodeInventory node = NodeDiscovery.discover(root);
        Set<String> taken = new HashSet<>();
        plugins.forEach(plugin -> taken.addAll(plugin.portIds()));
        for (RdmaDevicePlugin plugin : plugins) {
            List<PluginDevice> added = PluginDevice.forResource(node, plugin.resource(), taken);
            if (!added.isEmpty()) {
                LOG.info("{}: {} more devices {}", plugin.resource().name(), added.size(), added.stream().map(PluginDevice::id).toList());
                plugin.add(added);
            }
        }
    }

    private List<String> hcaNames() {
        Sysfs sysfs = new Sysfs(root);
        return sysfs.list(sysfs.resolve("sys/class/infiniband"));
    }

    /** True while every plugin is served and registered with the kubelet. */
    public boolean isServingAndRegistered() {
        return plugins.stream().allMatch(p -> servers.containsKey(p.resource().name()) && registered.contains(p.resource().name()));
    }

    /**
     * Every advertised port's health as the last poll read it, by port id ({@code mlx5_1:1}): the node health reads it
     * too, and knows a poll that changed nothing by getting the same map object.
     */
    public Map<String, PortHealth> portHealth() {
        Merged last = merged;
        if (last != null && last.isOf(plugins)) {
            return last.all(); // every poll of a node whose ports did not change: no allocation
        }
        List<Map<String, PortHealth>> parts = plugins.stream().map(RdmaDevicePlugin::portHealth).toList();
        Map<String, PortHealth> all = new java.util.HashMap<>();
        parts.forEach(all::putAll);
        merged = new Merged(parts, Map.copyOf(all));
        return merged.all();
    }

    /** The plugins' maps as last merged, and the merge: the same object while no port changed. */
    private record Merged(List<Map<String, PortHealth>> parts, Map<String, PortHealth> all) {
        boolean isOf(List<RdmaDevicePlugin> plugins) {
            if (parts.size() != plugins.size()) {
                return false;
            }
            for (int i = 0; i < parts.size(); i++) {
                if (parts.get(i) != plugins.get(i).portHealth()) {
                    return false;
                }
            }
            return true;
        }
    }

    List<RdmaDevicePlugin> plugins() {
        return plugins;
    }

    boolean isRegistered(RdmaDevicePlugin plugin) {
        return registered.contains(plugin.resource().name());
    }

    private void serve(RdmaDevicePlugin plugin) {
        PluginServer old = servers.remove(plugin.resource().name());
        if (old != null) {
            plugin.closeStreams();
            old.close();
        }
        servers.put(plugin.resource().name(), PluginServer.start(pluginDir.resolve(plugin.resource().socketName()), plugin));
    }

    private void register(RdmaDevicePlugin plugin) {
        String name = plugin.resource().name();
        try {
            KubeletClient.register(pluginDir, plugin.resource());
            registered.add(name);
            failingRegistration.remove(name);
            LOG.info("{} registered with the kubelet (endpoint {})", name, plugin.resource().socketName());
        } catch (StatusRuntimeException e) {
            registered.remove(name);
            if (failingRegistration.add(name)) {
                Throwable cause = e.getStatus().getCause();
                LOG.warn("{} could not register with the kubelet: {} {}; retrying every {} s", name, e.getStatus().getCode(),
                        cause != null ? cause.getMessage() : e.getStatus().getDescription(), REGISTER_RETRY.toSeconds());
            }
            if (Files.exists(pluginDir.resolve(KubeletClient.KUBELET_SOCKET))) {
                scheduler.schedule(() -> register(plugin), REGISTER_RETRY.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    /** The kubelet restarted: serve again where our socket was removed, then register everything. */
    private void onKubeletRestart() {
        LOG.info("{} was created: the kubelet restarted, registering again", KubeletClient.KUBELET_SOCKET);
        registered.clear();
        restoreRemovedSockets();
        plugins.forEach(this::register);
    }

    private void restoreRemovedSockets() {
        for (RdmaDevicePlugin plugin : plugins) {
            if (!Files.exists(pluginDir.resolve(plugin.resource().socketName()))) {
                serve(plugin);
            }
        }
    }

    private void startWatching() {
        try {
            watchService = pluginDir.getFileSystem().newWatchService();
            pluginDir.register(watchService, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot watch " + pluginDir + ": " + e.getMessage(), e);
        }
        watcher = Thread.ofPlatform().name("railyard-kubelet-watch").daemon().start(this::watch);
    }

    private void watch() {
        try {
            while (true) {
                WatchKey key = watchService.take();
                for (WatchEvent<?> event : key.pollEvents()) {
                    Object context = event.context();
                    boolean kubeletCreated = event.kind() == StandardWatchEventKinds.ENTRY_CREATE
                            && KubeletClient.KUBELET_SOCKET.equals(String.valueOf(context));
                    if (kubeletCreated || event.kind() == StandardWatchEventKinds.OVERFLOW) {
                        scheduler.execute(this::onKubeletRestart);
                    } else if (event.kind() == StandardWatchEventKinds.ENTRY_DELETE) {
                        scheduler.execute(this::restoreRemovedSockets);
                    }
                }
                if (!key.reset()) {
                    LOG.error("{} went away: the agent can no longer see kubelet restarts", pluginDir);
                    return;
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // closing
        }
    }

    /** Stops serving and removes the sockets. */
    @Override
    public void close() {
        if (watcher != null) {
            try {
                watchService.close();
            } catch (IOException e) {
                LOG.debug("closing the watch service: {}", e.getMessage());
            }
            watcher.interrupt();
        }
        scheduler.shutdownNow();
        plugins.forEach(RdmaDevicePlugin::closeStreams);
        servers.values().forEach(PluginServer::close);
        servers.clear();
    }
}
