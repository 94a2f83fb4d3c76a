package io.railyard.bench;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.javaoperatorsdk.operator.Operator;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.operator.model.OperatorDefaults;
import io.railyard.operator.model.TrainingJobModel;
import io.railyard.operator.reconcile.TrainingJobReconciler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The operator benches' cluster: the fabric8 CRUD mock API server (its objects found by name, {@link IndexedCrudDispatcher})
 * in this JVM or another, or a real API server (tools/control-plane); an observer's client, and the operator on a
 * client of its own whose requests are counted, watches apart.
 */
final class BenchCluster implements AutoCloseable {
    final RequestCounts requests = new RequestCounts();
    final KubernetesClient observer;
    private final KubernetesMockServer server;
    private final KubernetesClient client;
    private Operator operator;
    private boolean realServer;
    /** The installation the operator runs with, and the plain client builds its pods with. */
    private OperatorDefaults defaults = new OperatorDefaults("railyard:bench", "rdma/rdma");

    /** The mock server in this JVM. */
    BenchCluster() {
        this(new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new IndexedCrudDispatcher(), false), null);
    }

    /** The mock server at {@code url}, in a process of its own ({@link MockApiServer}): this JVM's heap is then the operator's. */
    BenchCluster(String url) {
        this(null, new ConfigBuilder().withMasterUrl(url).withTrustCerts(true).withNamespace("default").build());
    }

    /** The real API server of a kubeconfig: the operator patches with server-side apply there, as OperatorCommand runs it. */
    static BenchCluster real(Path kubeconfig) throws IOException {
        BenchCluster cluster = new BenchCluster(null, Config.fromKubeconfig(Files.readString(kubeconfig)));
        cluster.realServer = true;
        return cluster;
    }

    private BenchCluster(KubernetesMockServer server, Config given) {
        this.server = server;
        Config config = given;
        if (server != null) {
            server.init();
            config = server.createClient().getConfiguration();
        }
        observer = new KubernetesClientBuilder().withConfig(config).build();
        client = new KubernetesClientBuilder().withConfig(config)
                .withHttpClientBuilderConsumer(builder -> builder.addOrReplaceInterceptor("count", requests)).build();
    }

    /** Starts the operator as OperatorCommand runs it; on the mock server without server-side apply, which it lacks. */
    TrainingJobReconciler startOperator() {
        return startOperator(defaults);
    }

    /** The same, with the installation's defaults (a cluster that restarts pods in place, or not). */
    TrainingJobReconciler startOperator(OperatorDefaults installation) {
        defaults = installation;
        operator = new Operator(o -> {
            o.withKubernetesClient(client).withCloseClientOnStop(false);
            if (!realServer) {
                o.withUseSSAToPatchPrimaryResource(false).withSSABasedCreateUpdateMatchForDependentResources(false);
            }
        });
        TrainingJobReconciler reconciler = new TrainingJobReconciler(installation, (namespace, pod) -> Optional.empty(), Clock.systemUTC());
        operator.register(reconciler);
        operator.start();
        return reconciler;
    }

    /**
     * The same server's own pace: the pods the operator makes for {@code job} (as `railyard render` prints them), named
     * LABEL-0.. in namespace peer, created 16 at a time by a client with nothing else to do.
     */
    double plainClientCreates(TrainingJob job, String label) throws Exception {
        return plainClientCreates(job, label, () -> {});
    }

    /** The same, the time taken until {@code seen} returns too (a watch that has seen every pod, as the operator's pods are timed). */
    double plainClientCreates(TrainingJob job, String label, Awaited seen) throws Exception {
        List<Pod> pods = peerPods(job, label);
        // a scheduler of no one's: a real kube-scheduler would spend the cores both sides are timed on, placing pods for nothing
        pods.forEach(pod -> pod.getSpec().setSchedulerName("railyard-bench-peer"));
        long start = System.nanoTime();
        createAll(pods);
        seen.await();
        return (System.nanoTime() - start) / 1e9;
    }

    /**
     * The same server's pace for a restart by recreation (on a real control plane): the pods of {@link #plainClientCreates}
     * bound to these KWOK nodes and Running; then, timed, deleted 16 at a time, waited out (KWOK ends each as a kubelet
     * would) and created again, until a watch has seen them all.
     */
    double plainClientRecreates(TrainingJob job, String label, List<String> nodes) throws Exception {
        List<Pod> pods = peerPods(job, label);
        for (int i = 0; i < pods.size(); i++) {
            pods.get(i).getSpec().setNodeName(nodes.get(i));
        }
        createAll(pods);
        while (observer.pods().inNamespace("peer").withLabel(Names.JOB_LABEL, label).list().getItems().stream()
                .filter(pod -> pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase())).count() < pods.size()) {
            Thread.sleep(200);
        }
        long start = System.nanoTime();
        try (JobPodsWatch watch = new JobPodsWatch(observer, "peer", label)) {
            try (ExecutorService deleters = Executors.newFixedThreadPool(16)) {
                for (Pod pod : pods) {
                    deleters.submit(() -> observer.pods().inNamespace("peer").withName(pod.getMetadata().getName()).delete());
                }
            }
            watch.awaitDeleted(pods.size());
        }
        try (JobPodsWatch watch = new JobPodsWatch(observer, "peer", label)) {
            createAll(pods);
            watch.await(pods.size());
        }
        return (System.nanoTime() - start) / 1e9;
    }

    List<Pod> peerPods(TrainingJob job, String label) {
        TrainingJob renamed = new TrainingJob();
        renamed.setMetadata(new ObjectMetaBuilder().withName(label).withNamespace("peer").build());
        renamed.setSpec(job.getSpec());
        return TrainingJobModel.desired(renamed, defaults).objects().stream().filter(Pod.class::isInstance).map(Pod.class::cast).toList();
    }

    void createAll(List<Pod> pods) {
        try (ExecutorService creators = Executors.newFixedThreadPool(16)) {
            for (Pod pod : pods) {
                creators.submit(() -> observer.resource(pod).create());
            }
        }
    }

    /** Something waited for. */
    interface Awaited {
        void await() throws InterruptedException;
    }

    /** The same server's pace for patches: a label and an annotation merged into each of the pods {@link #plainClientCreates} made. */
    double plainClientPatches(String label, int count) throws Exception {
        long start = System.nanoTime();
        String patch = "{\"metadata\":{\"labels\":{\"" + Names.ATTEMPT_LABEL + "\":\"1\"},\"annotations\":{\"" + Names.RESTART_BASE_ANNOTATION + "\":\"1\"}}}";
        try (ExecutorService patchers = Executors.newFixedThreadPool(16)) {
            for (int i = 0; i < count; i++) {
                String name = label + "-" + i;
                patchers.submit(() -> observer.pods().inNamespace("peer").resource(new PodBuilder().withNewMetadata().withName(name)
                        .withNamespace("peer").endMetadata().build()).patch(PatchContext.of(PatchType.JSON_MERGE), patch));
            }
        }
        return (System.nanoTime() - start) / 1e9;
    }

    @Override
    public void close() {
        if (operator != null) {
            operator.stop();
        }
        observer.close();
        client.close();
        if (server != null) {
            server.destroy();
        }
    }
}
