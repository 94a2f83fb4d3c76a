package io.railyard.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.railyard.agent.metrics.MetricsServer;
import java.net.InetSocketAddress;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.railyard.operator.model.OperatorDefaults;
import io.railyard.operator.model.RestartStrategies;
import org.slf4j.LoggerFactory;
import io.railyard.operator.reconcile.LenientReading;
import io.railyard.operator.reconcile.TrainingJobReconciler;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code railyard operator}: the TrainingJob controller. */
@Command(
        name = "operator",
        mixinStandardHelpOptions = true,
        description = "Run the TrainingJob operator: gangs that start together, restart together, and rank by topology.")
final class OperatorCommand implements Callable<Integer> {

    @Option(names = "--namespace", paramLabel = "NS", description = "A namespace to watch (repeatable; default: all).")
    List<String> namespaces = new ArrayList<>();

    @Option(names = "--leader-election-namespace", defaultValue = "${env:POD_NAMESPACE}",
            description = "Namespace of the leader-election Lease (default: POD_NAMESPACE; none: no leader election).")
    String leaseNamespace;

    @Option(names = "--metrics-address", description = "HOST:PORT of /metrics for Prometheus (default: none).")
    String metricsAddress;

    enum InPlaceRestart { auto, on, off }

    @Option(names = "--in-place-restart", defaultValue = "auto", description = "Whether the cluster restarts pods in place: auto (from"
            + " the API server's version, " + RestartStrategies.IN_PLACE_SINCE + " and later), on (gates RestartAllContainersOnContainerExits and"
            + " ContainerRestartRules enabled earlier), off. Default: ${DEFAULT-VALUE}.")
    InPlaceRestart inPlaceRestart;

    @Mixin
    KubeClients kube = new KubeClients();

    @Mixin
    InstallationOptions installation = new InstallationOptions();

    @Override
    public Integer call() throws Exception {
        ServiceLog.railyardAtInfo();
        OperatorDefaults defaults = installation.defaults();
        KubernetesSerialization serialization = LenientReading.serialization(); // one unreadable job must not stop the others
        KubernetesClient client = kube.connect(serialization); // fails in one line, before the operator's threads start
        defaults = defaults.withInPlaceRestart(inPlaceServed(client));
        Operator operator = new Operator(o -> {
            o.withKubernetesClient(client).withResourceCloner(LenientReading.cloner(serialization))
                    // a real API server answers 429 "storage is (re)initializing" for a while after the CRD is established
                    // or after it restarts: keep listing, as a controller does, instead of stopping at the first answer
                    .withStopOnInformerErrorDuringStartup(false);
            if (leaseNamespace != null && !leaseNamespace.isBlank()) {
                o.withLeaderElectionConfiguration(new LeaderElectionConfiguration("railyard-operator", leaseNamespace));
            }
        });
        InetSocketAddress metricsSocket = metricsAddress == null ? null : HostPort.parse("--metrics-address", metricsAddress);
        TrainingJobReconciler reconciler = new TrainingJobReconciler(defaults, null, Clock.systemUTC());
        operator.register(reconciler, c -> {
            c.withReconciliationMaxInterval(TrainingJobReconciler.MAX_INTERVAL);
            if (!namespaces.isEmpty()) {
                c.settingNamespaces(namespaces.toArray(String[]::new));
            }
        });
        Termination termination = Termination.listen();
        MetricsServer metrics = null;
        if (metricsSocket != null) {
            PrometheusRegistry registry = new PrometheusRegistry();
            registry.register(reconciler.metrics());
            metrics = HostPort.listen("--metrics-address", metricsSocket, address -> MetricsServer.start(address, registry));
        }
        operator.start();
        termination.await();
        if (metrics != null) {
            metrics.close();
        }
        operator.stop();
        return 0;
    }

    /** Decided once at start, and said: a restart strategy of Auto follows it. */
    private boolean inPlaceServed(KubernetesClient client) {
        String version = inPlaceRestart == InPlaceRestart.auto ? serverVersion(client) : "";
        boolean served = switch (inPlaceRestart) {
            case on -> true;
            case off -> false;
            case auto -> RestartStrategies.servedBy(version);
        };
        LoggerFactory.getLogger(OperatorCommand.class).info("gangs restart {} (--in-place-restart={}{})", served ? "in place" : "by recreating their pods",
                inPlaceRestart, version.isEmpty() ? "" : ", Kubernetes " + version);
        return served;
    }

    private static String serverVersion(KubernetesClient client) {
        try {
            return client.getKubernetesVersion().getGitVersion();
        } catch (RuntimeException e) { // a server that does not say its version is taken as an old one
            return "unknown";
        }
    }
}
