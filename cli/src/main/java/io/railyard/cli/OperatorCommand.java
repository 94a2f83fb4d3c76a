package io.railyard.cli;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.railyard.api.TrainingJob;
import java.time.Duration;
import java.time.Instant;
import io.javaoperatorsdk.operator.Operator;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.railyard.agent.metrics.MetricsServer;
import java.net.InetSocketAddress;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.railyard.operator.model.OperatorDefaults;
import io.railyard.operator.model.WorkloadGangModel;
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

    @Option(names = "--network-policy", defaultValue = "true", arity = "1", description = "A NetworkPolicy per TrainingJob on the pod"
            + " network, so that its channels take connections from its own pods only; false for a CNI that enforces none"
            + " (default: ${DEFAULT-VALUE}).")
    boolean networkPolicy;

    private static final String LEASE = "railyard-operator";

    /** How long the operator waits for the API server to serve TrainingJobs before its informers take over the retrying. */
    private static final Duration STORAGE_WAIT = Duration.ofMinutes(2);

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
        defaults = defaults.withInPlaceRestart(inPlaceServed(client)).withNetworkPolicy(networkPolicy).withWorkloadGangs(workloadGangsServed(client));
        Operator operator = new Operator(o -> {
            o.withKubernetesClient(client).withResourceCloner(LenientReading.cloner(serialization))
                    // a real API server answers 429 "storage is (re)initializing" for a while after the CRD is established
                    // or after it restarts: keep listing, as a controller does, instead of stopping at the first answer
                    .withStopOnInformerErrorDuringStartup(false);
            if (leaseNamespace != null && !leaseNamespace.isBlank()) {
                o.withLeaderElectionConfiguration(leaderElection(leaseNamespace));
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
        awaitTrainingJobStorage(client);
        operator.start();
        termination.await();
        if (metrics != null) {
            metrics.close();
        }
        operator.stop();
        return 0;
    }

    /** Decided once at start, and said: a restart strategy of Auto follows it. */
    /** Whether the cluster serves Kubernetes' own gangs (scheduling.k8s.io/v1beta1 Workload and PodGroup), from discovery. */
    static boolean workloadGangsServed(KubernetesClient client) {
        try {
            return client.supports(WorkloadGangModel.API_VERSION, "Workload") && client.supports(WorkloadGangModel.API_VERSION, "PodGroup");
        } catch (RuntimeException e) {
            return false;
        }
    }

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

    /**
     * The Lease railyard-operator: the replica that holds it reconciles. One that cannot renew it in time (the API server
     * away longer than the renew deadline) exits, as kube-controller-manager does, and its Deployment starts it again.
     */
    private static LeaderElectionConfiguration leaderElection(String namespace) {
        var log = LoggerFactory.getLogger(OperatorCommand.class);
        String lease = "Lease " + namespace + "/" + LEASE;
        return LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(LEASE).withLeaseNamespace(namespace)
                .withLeaderCallbacks(new LeaderCallbacks(() -> log.info("leading: this replica holds the {}", lease),
                        () -> log.warn("lost the {} (not renewed within {} s): exiting, to be started again",
                                lease, LeaderElectionConfiguration.RENEW_DEADLINE_DEFAULT_VALUE.toSeconds()),
                        leader -> log.info("{} is held by {}", lease, leader)))
                .build();
    }

    /**
     * Waits while the API server answers 429 or 503 for TrainingJobs, as it does while their storage initializes (a CRD
     * just installed with the operator, a server just restarted), saying so once; anything else the informers report.
     */
    private void awaitTrainingJobStorage(KubernetesClient client) throws InterruptedException {
        Instant deadline = Instant.now().plus(STORAGE_WAIT);
        boolean said = false;
        while (true) {
            try {
                var jobs = client.resources(TrainingJob.class);
                (namespaces.isEmpty() ? jobs.inAnyNamespace() : jobs.inNamespace(namespaces.getFirst()))
                        .list(new ListOptionsBuilder().withLimit(1L).build());
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 429 && e.getCode() != 503 || Instant.now().isAfter(deadline)) {
                    return;
                }
                if (!said) {
                    LoggerFactory.getLogger(OperatorCommand.class).info("the API server does not serve TrainingJobs yet ({} {}): waiting",
                            e.getCode(), e.getStatus() == null ? "" : e.getStatus().getMessage());
                    said = true;
                }
                Thread.sleep(500);
            }
        }
    }

    /** The API server's gitVersion; "unknown" where it does not say (some proxies and test servers), taken as an old one. */
    private static String serverVersion(KubernetesClient client) {
        try {
            String version = client.getKubernetesVersion().getGitVersion();
            return version == null || version.isBlank() ? "unknown" : version;
        } catch (RuntimeException e) {
            return "unknown";
        }
    }
}
