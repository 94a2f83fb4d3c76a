package io.railyard.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.volcano.api.model.scheduling.v1beta1.PodGroup;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The running operator against the fabric8 CRUD mock API server (no real API server can be had in tests). */
@EnableKubernetesMockClient(crud = true)
class TrainingJobReconcilerTest {
    static KubernetesClient client;
    static KubernetesMockServer server;
    static OperatorUnderTest running;
    static TrainingJobReconciler reconciler;
    /** Rank 0 logs by pod: the kubelet's log endpoint, which the mock server does not serve. */
    static final Map<String, String> LOGS = new ConcurrentHashMap<>();
    /** The operator's clock: every time a test writes (a container's finish) is read from it, never a fixed date. */
    static final Clock CLOCK = Clock.systemUTC();

    @BeforeAll
    static void start() {
        running = OperatorUnderTest.start(client, (namespace, pod) -> Optional.ofNullable(LOGS.get(pod)), CLOCK);
        reconciler = running.reconciler();
    }

    @AfterAll
    static void stop() {
        running.close();
    }

    private static TrainingJob create(String name, String spec) {
        return OperatorUnderTest.create(client, name, spec);
    }

    private static TrainingJob job(String name) {
        return client.resources(TrainingJob.class).inNamespace("ns").withName(name).get();
    }

    private static Pod pod(String name) {
        return client.pods().inNamespace("ns").withName(name).get();
    }

    private static List<Pod> pods(String job) {
        return client.pods().inNamespace("ns").withLabel(Names.JOB_LABEL, job).list().getItems();
    }

    private static void place(Pod pod, String node, String phase) {
        client.pods().inNamespace("ns").withName(pod.getMetadata().getName()).edit(p -> new PodBuilder(p)
                .editSpec().withNodeName(node).endSpec().withNewStatus().withPhase(phase).endStatus().build());
    }

    private static Condition condition(String job, String type) {
        return job(job).getStatus().conditions.stream().filter(c -> c.getType().equals(type)).findFirst().orElseThrow();
    }

    @Test
    void createsTheGangAndFollowsItToRunning() throws Exception {
        create("gang", "{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, scheduling: {scheduler: volcano, queue: q}}");

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pods("gang")).hasSize(2));
        assertThat(client.services().inNamespace("ns").withName("gang").get()).isNotNull();
        assertThat(client.resources(PodGroup.class).inNamespace("ns").withName("gang").get().getSpec().getMinMember()).isEqualTo(2);
        assertThat(pods("gang")).allSatisfy(pod -> assertThat(pod.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(owner -> assertThat(owner.getName()).isEqualTo("gang")));
        await().untilAsserted(() -> assertThat(job("gang").getStatus().phase).isEqualTo("Scheduling"));

        pods("gang").forEach(pod -> place(pod, "node-" + pod.getMetadata().getName(), "Running"));

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(job("gang").getStatus().phase).isEqualTo("Running"));
        assertThat(condition("gang", "Running").getStatus()).isEqualTo("True");
        assertThat(condition("gang", "Scheduled").getReason()).isEqualTo("AllPodsPlaced");
        assertThat(job("gang").getStatus().ranks).extracting(r -> r.pod).containsExactly("gang-0", "gang-1");
        assertThat(job("gang").getStatus().gpus).isEqualTo(16);
        await().untilAsserted(() -> assertThat(client.v1().events().inNamespace("ns").list().getItems())
                .anySatisfy(event -> {
                    assertThat(event.getInvolvedObject().getName()).isEqualTo("gang");
                    assertThat(event.getReason()).isEqualTo("AllRanksRunning");
                }));
    }

    @Test
    void aJobWhosePodsTalkToEachOtherGetsItsKeyBeforeItsPodsAndANetworkPolicy() throws Exception {
        create("sealed", "{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, scheduling: {scheduler: kueue, queue: q},"
                + " monitoring: {ncclInspector: {enabled: true}}}");

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pods("sealed")).hasSize(2));
        io.fabric8.kubernetes.api.model.Secret key = client.secrets().inNamespace("ns").withName("sealed-channel").get();
        assertThat(java.util.Base64.getDecoder().decode(key.getData().get("key"))).hasSize(32);
        assertThat(key.getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> assertThat(owner.getName()).isEqualTo("sealed"));
        assertThat(key.getMetadata().getCreationTimestamp()).as("created before the pods that mount it")
                .isLessThanOrEqualTo(pods("sealed").getFirst().getMetadata().getCreationTimestamp());
        assertThat(client.network().v1().networkPolicies().inNamespace("ns").withName("sealed-channels").get()).isNotNull();
        assertThat(job("sealed").getStatus().toString()).doesNotContain(key.getData().get("key"));
    }

    @Test
    void aNewJobsSpecWarningsBecomeWarningEvents() throws Exception {
        create("one-rail", "{image: pytorch, script: t.py, nodes: 1, gpusPerNode: 8}");

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(client.v1().events().inNamespace("ns").list().getItems())
                .anySatisfy(event -> {
                    assertThat(event.getInvolvedObject().getName()).isEqualTo("one-rail");
                    assertThat(event.getType()).isEqualTo("Warning");
                    assertThat(event.getReason()).isEqualTo("SpecWarning");
                    assertThat(event.getMessage()).contains("devicesPerNode is not set", "one rail");
                }));
    }

    private static final io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext FUTURE = new io.fabric8.kubernetes.client.dsl.base
            .ResourceDefinitionContext.Builder().withGroup("railyard.io").withVersion("v1alpha1").withKind("TrainingJob").withPlural("trainingjobs")
            .withNamespaced(true).build();

    @Test
    void aJobTheOperatorCannotReadIsNamedAndTheOthersGoOn() throws Exception {
        // as after a CRD upgrade that added a field, or a CRUD mock that prunes nothing: the API server hands it over
        client.genericKubernetesResources(FUTURE).inNamespace("ns").resource(new ObjectMapper(new YAMLFactory())
                .readValue("""
                        apiVersion: railyard.io/v1alpha1
                        kind: TrainingJob
                        metadata: {name: future, namespace: ns}
                        spec: {image: pytorch, script: t.py, nodes: 1, gpusPerNode: 8, elasticPolicy: {minNodes: 1}}
                        """, io.fabric8.kubernetes.api.model.GenericKubernetesResource.class)).create();
        create("present", "{image: pytorch, script: t.py, nodes: 1, gpusPerNode: 8, rdma: {devicesPerNode: 8}}");

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pods("present")).hasSize(1));
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(client.v1().events().inNamespace("ns").list().getItems())
                .anySatisfy(event -> {
                    assertThat(event.getInvolvedObject().getName()).isEqualTo("future");
                    assertThat(event.getType()).isEqualTo("Warning");
                    assertThat(event.getMessage()).contains("spec.elasticPolicy: unknown field");
                }));
        var stored = client.genericKubernetesResources(FUTURE).inNamespace("ns").withName("future").get();
        assertThat(String.valueOf(stored.getAdditionalProperties().get("status"))).contains("type=Failed").contains("reason=UnreadableSpec");
        assertThat(pods("future")).isEmpty();
        create("after", "{image: pytorch, script: t.py, nodes: 1, gpusPerNode: 8, rdma: {devicesPerNode: 8}}");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pods("after")).hasSize(1));
    }

    @Test
    void aReconcileWithNothingChangedWritesNothing() throws Exception {
        create("quiet", "{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8}");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(pods("quiet")).hasSize(2);
            assertThat(job("quiet").getStatus()).isNotNull(); // the pods may show before the first status does
            assertThat(job("quiet").getStatus().phase).isEqualTo("Scheduling");
        });
        while (server.takeRequest(200, TimeUnit.MILLISECONDS) != null) {
            // drain what came before the steady state
        }

        long reconcilesBefore = reconciler.metrics().reconciles();
        List<String> requests = new ArrayList<>();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(12); // the operator re-checks a waiting job every 10 s
        while (System.nanoTime() < end) {
            RecordedRequest request = server.takeRequest(500, TimeUnit.MILLISECONDS);
            if (request != null && !request.getPath().contains("watch=true")) {
                requests.add(request.getMethod() + " " + request.getPath());
            }
        }

        assertThat(reconciler.metrics().reconciles()).as("the reconcile ran").isGreaterThan(reconcilesBefore);
        assertThat(requests).as("its Service, pods and nodes come from the informers' caches").isEmpty();
    }

    @Test
    void errorsFromTheApiServerConvergeWithoutDuplicates() throws Exception {
        server.expect().post().withPath("/api/v1/namespaces/ns/pods").andReturn(500, "{\"kind\":\"Status\",\"code\":500}").times(3);
        server.expect().post().withPath("/api/v1/namespaces/ns/services").andReturn(409, "{\"kind\":\"Status\",\"code\":409}").once();

        create("flaky", "{image: pytorch, script: t.py, nodes: 3, gpusPerNode: 8}");

        await().atMost(Duration.ofSeconds(40)).untilAsserted(() -> {
            assertThat(pods("flaky")).extracting(p -> p.getMetadata().getName()).containsExactlyInAnyOrder("flaky-0", "flaky-1", "flaky-2");
            assertThat(client.services().inNamespace("ns").withName("flaky").get()).isNotNull();
            assertThat(job("flaky").getStatus().phase).isEqualTo("Scheduling");
        });
    }

    @Test
    void aFinishedJobIsDeletedAfterItsTtl() throws Exception {
        create("short", "{image: pytorch, script: t.py, nodes: 1, gpusPerNode: 8, runPolicy: {ttlSecondsAfterFinished: 1}}");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pods("short")).hasSize(1));

        place(pods("short").getFirst(), "n1", "Succeeded");

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(job("short")).isNull());
        assertThat(pods("short")).isEmpty();
    }

    @Test
    void deadlineExceededFailsTheJob() throws Exception {
        create("late", "{image: pytorch, script: t.py, nodes: 1, gpusPerNode: 8, runPolicy: {activeDeadlineSeconds: 1}}");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pods("late")).hasSize(1));
        place(pods("late").getFirst(), "n1", "Running");

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(job("late").getStatus().phase).isEqualTo("Failed"));
        assertThat(condition("late", "Failed").getReason()).isEqualTo("DeadlineExceeded");
        await().untilAsserted(() -> assertThat(pods("late")).isEmpty());
    }

    @Test
    void aFailedPodRestartsTheWholeGang() throws Exception {
        create("restart", "{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, runPolicy: {backoffLimit: 1}}");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pods("restart")).hasSize(2));
        List<String> firstUids = pods("restart").stream().map(p -> p.getMetadata().getUid()).toList();

        place(pod("restart-1"), "n1", "Failed");

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(job("restart").getStatus().restarts).isEqualTo(1);
            assertThat(pods("restart")).hasSize(2).noneMatch(p -> firstUids.contains(p.getMetadata().getUid()));
        });
        assertThat(condition("restart", "Restarting").getMessage()).contains("pod restart-1 failed");

        place(pod("restart-0"), "n1", "Failed");

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(job("restart").getStatus().phase).isEqualTo("Failed"));
        assertThat(condition("restart", "Failed").getReason()).isEqualTo("BackoffLimitExceeded");
        assertThat(condition("restart", "Failed").getMessage()).contains("pod restart-0 failed", "after 1 restarts");
        assertThat(reconciler.metrics().gangRestarts("Job")).isGreaterThanOrEqualTo(1);
    }

    @Test
    void topologyKeysOrderTheRanks() throws Exception {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("n-a").addToLabels("leaf", "l2")
                .addToLabels(Names.RDMA_NODE_LABEL, "true").endMetadata().build()).create();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("n-b").addToLabels("leaf", "l1")
                .addToLabels(Names.RDMA_NODE_LABEL, "true").endMetadata().build()).create();
        create("topo", "{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, scheduling: {topologyKeys: [leaf]}}");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pods("topo")).hasSize(2));

        place(pods("topo").stream().filter(p -> p.getMetadata().getName().equals("topo-0")).findFirst().orElseThrow(), "n-a", "Pending");
        place(pods("topo").stream().filter(p -> p.getMetadata().getName().equals("topo-1")).findFirst().orElseThrow(), "n-b", "Pending");

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(pod("topo-1").getMetadata().getAnnotations()).containsEntry(Names.NODE_RANK_ANNOTATION, "0")
                    .containsEntry(Names.MASTER_ADDR_ANNOTATION, "topo-1.topo.ns.svc");
            assertThat(pod("topo-0").getMetadata().getAnnotations()).containsEntry(Names.NODE_RANK_ANNOTATION, "1")
                    .containsEntry(Names.MASTER_ADDR_ANNOTATION, "topo-1.topo.ns.svc");
            assertThat(pod("topo-1").getMetadata().getLabels()).containsEntry(Names.RANK_LABEL, "0");
            assertThat(pod("topo-0").getMetadata().getLabels()).containsEntry(Names.RANK_LABEL, "1");
        });
    }

    @Test
    void aPodWithoutItsRankLabelGetsItOnceTheGangIsPlaced() throws Exception {
        create("older", "{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8}");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pods("older")).hasSize(2));
        assertThat(pod("older-1").getMetadata().getLabels()).containsEntry(Names.RANK_LABEL, "1"); // set when it was made
        // as a pod made by an operator from before the label was
        client.pods().inNamespace("ns").withName("older-1").edit(p -> {
            p.getMetadata().getLabels().remove(Names.RANK_LABEL);
            return p;
        });

        pods("older").forEach(pod -> place(pod, "node-" + pod.getMetadata().getName(), "Running"));

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                assertThat(pod("older-1").getMetadata().getLabels()).containsEntry(Names.RANK_LABEL, "1"));
        assertThat(pod("older-0").getMetadata().getLabels()).containsEntry(Names.RANK_LABEL, "0");
    }

    @Test
    void rankZerosNcclLogDecidesRdmaVerified() throws Exception {
        Path logs = Path.of(System.getProperty("railyard.repo", "..")).resolve("testdata/logs");
        LOGS.put("ok-0", Files.readString(logs.resolve("nccl-ib-gdr-ok-aks-01.log")));
        LOGS.put("tcp-0", Files.readString(logs.resolve("nccl-socket-fallback-driver-stopped-01.log")));
        for (String name : List.of("ok", "tcp")) {
            create(name, "{image: pytorch, script: t.py, nodes: 1, gpusPerNode: 8}");
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pods(name)).hasSize(1));
            place(pods(name).getFirst(), "node-" + name, "Running");
        }

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(job("ok").getStatus().rdma).isNotNull();
            assertThat(job("tcp").getStatus().rdma).isNotNull();
        });
        assertThat(job("ok").getStatus().rdma.verified).isTrue();
        assertThat(condition("ok", "RdmaVerified").getReason()).isEqualTo("RdmaInUse");
        assertThat(job("tcp").getStatus().rdma.verified).isFalse();
        assertThat(condition("tcp", "RdmaVerified").getStatus()).isEqualTo("False");
        assertThat(condition("tcp", "RdmaVerified").getMessage()).contains("tcp-0 line 5", "No device found");
    }

    /** The kubelet's report of a pod's preflight init container: exited with its figures as the termination message. */
    private static void preflightDone(String pod, String node, int exit, String message) {
        client.pods().inNamespace("ns").withName(pod).edit(p -> new PodBuilder(p).editSpec().withNodeName(node).endSpec()
                .withNewStatus().withPhase(exit == 0 ? "Running" : "Failed").addNewInitContainerStatus().withName("preflight")
                .withNewState().withNewTerminated().withExitCode(exit).withMessage(message).withFinishedAt(CLOCK.instant().toString())
                .endTerminated().endState().endInitContainerStatus().endStatus().build());
    }

    private static String link(String verdict, double gbps) {
        return "{\"links\":[{\"hca\":\"mlx5_0\",\"gbps\":" + gbps + ",\"lineRateGbps\":200.0,\"percent\":" + gbps / 2
                + ",\"verdict\":\"" + verdict + "\",\"reason\":" + (verdict.equals("ok") ? "null" : "\"below 80%\"") + "}]}";
    }

    @Test
    void aPassedPreflightIsRecordedAndTheGangRuns() throws Exception {
        create("gate-ok", "{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, preflight: {}}");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pods("gate-ok")).hasSize(2));

        preflightDone("gate-ok-0", "pf-a", 0, link("ok", 196));
        preflightDone("gate-ok-1", "pf-b", 0, link("ok", 195));

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(job("gate-ok").getStatus().preflight).isNotNull());
        assertThat(job("gate-ok").getStatus().preflight.passed).isTrue();
        assertThat(job("gate-ok").getStatus().preflight.links).extracting(l -> l.from + ">" + l.to).containsExactly("pf-a>pf-b", "pf-b>pf-a");
        assertThat(condition("gate-ok", "PreflightPassed").getStatus()).isEqualTo("True");
        assertThat(job("gate-ok").getStatus().phase).isEqualTo("Running");
    }

    @Test
    void aFailedPreflightLabelsTheSuspectAndRestartsTheGangAwayFromIt() throws Exception {
        for (String node : List.of("pf-x", "pf-y", "pf-z")) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata().build()).create();
        }
        create("gate-bad", "{image: pytorch, script: t.py, nodes: 3, gpusPerNode: 8, preflight: {}}");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pods("gate-bad")).hasSize(3));
        List<String> firstUids = pods("gate-bad").stream().map(p -> p.getMetadata().getUid()).toList();

        preflightDone("gate-bad-1", "pf-y", 1, link("slow", 61));
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(job("gate-bad").getStatus().restarts).as("the gate waits for every pod's figures").isNull();
            assertThat(pods("gate-bad")).hasSize(3);
        });
        preflightDone("gate-bad-0", "pf-x", 1, "{\"links\":[{\"hca\":\"mlx5_0\",\"verdict\":\"failed\",\"reason\":\"ib_write_bw: Couldn't connect\"}]}");
        preflightDone("gate-bad-2", "pf-z", 0, link("ok", 197));

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(job("gate-bad").getStatus().restarts).isEqualTo(1);
            assertThat(pods("gate-bad")).hasSize(3).noneMatch(p -> firstUids.contains(p.getMetadata().getUid()));
        });
        TrainingJobStatus status = job("gate-bad").getStatus();
        assertThat(status.nodeFailures).isEqualTo(1);
        assertThat(status.jobFailures).isNull();
        assertThat(status.excludedNodes).extracting(e -> e.node + " " + e.reason).containsExactly("pf-y PreflightFailed");
        assertThat(status.restartHistory).singleElement().satisfies(restart -> {
            assertThat(restart.cause).isEqualTo("Node");
            assertThat(restart.message).startsWith("preflight: pf-y suspect: all 2 of its links");
        });
        assertThat(condition("gate-bad", "Restarting").getReason()).isEqualTo("NodeFailure");
        assertThat(pod("gate-bad-0").getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms().getFirst().getMatchExpressions())
                .anySatisfy(e -> assertThat(e.getKey() + " " + e.getOperator() + " " + e.getValues()).isEqualTo("kubernetes.io/hostname NotIn [pf-y]"));
        assertThat(client.nodes().withName("pf-y").get().getMetadata().getLabels()).containsEntry(Names.PREFLIGHT_LABEL, "failed");
        assertThat(client.nodes().withName("pf-x").get().getMetadata().getLabels()).doesNotContainKey(Names.PREFLIGHT_LABEL);
    }

    @Test
    void aFailedPreflightThatBlamesNoNodeFailsTheJob() throws Exception {
        create("gate-slow", "{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, preflight: {}}");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pods("gate-slow")).hasSize(2));

        // one slow link each way between two nodes: the link's (or the fabric's), not a node's
        preflightDone("gate-slow-0", "pf-s0", 1, link("slow", 61));
        preflightDone("gate-slow-1", "pf-s1", 0, link("ok", 196));

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(job("gate-slow").getStatus().phase).isEqualTo("Failed"));
        assertThat(condition("gate-slow", "Failed").getReason()).isEqualTo("PreflightFailed");
        assertThat(condition("gate-slow", "PreflightPassed").getStatus()).isEqualTo("False");
        assertThat(job("gate-slow").getStatus().restarts).isNull();
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pods("gate-slow")).isEmpty());
    }

    @Test
    void aDraJobHasItsClaimTemplateCreatedAndDeletedWithIt() throws Exception {
        create("dra", "{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, rdma: {allocation: dra, devicesPerNode: 8}}");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(pods("dra")).hasSize(2);
            assertThat(client.resources(ResourceClaimTemplate.class).inNamespace("ns").withName("dra-rdma").get()).isNotNull();
        });
        assertThat(client.resources(ResourceClaimTemplate.class).inNamespace("ns").withName("dra-rdma").get().getMetadata().getOwnerReferences())
                .singleElement().satisfies(owner -> assertThat(owner.getName()).isEqualTo("dra"));
        assertThat(pod("dra-0").getSpec().getResourceClaims()).singleElement().satisfies(c -> assertThat(c.getResourceClaimTemplateName()).isEqualTo("dra-rdma"));

        client.resources(TrainingJob.class).inNamespace("ns").withName("dra").delete();

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                assertThat(client.resources(ResourceClaimTemplate.class).inNamespace("ns").withName("dra-rdma").get()).isNull());
    }

    @Test
    void deletingTheJobRemovesWhatItOwns() throws Exception {
        create("gone", "{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, scheduling: {scheduler: volcano, queue: q}}");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pods("gone")).hasSize(2));

        client.resources(TrainingJob.class).inNamespace("ns").withName("gone").delete();

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(pods("gone")).isEmpty();
            assertThat(client.services().inNamespace("ns").withName("gone").get()).isNull();
            assertThat(client.resources(PodGroup.class).inNamespace("ns").withName("gone").get()).isNull();
            assertThat(job("gone")).isNull();
        });
        // the operator's RBAC has delete on services and PodGroups, not deletecollection: one DELETE by name each
        List<String> deletes = new ArrayList<>();
        for (RecordedRequest request; (request = server.takeRequest(100, TimeUnit.MILLISECONDS)) != null; ) {
            if (request.getMethod().equals("DELETE")) {
                deletes.add(request.getPath());
            }
        }
        assertThat(deletes).contains("/api/v1/namespaces/ns/services/gone", "/apis/scheduling.volcano.sh/v1beta1/namespaces/ns/podgroups/gone")
                .noneMatch(path -> path.matches(".*/(services|podgroups|resourceclaimtemplates)\\?.*"));
    }

    @Test
    void anInvalidSpecFailsAndCreatesNothing() throws Exception {
        create("invalid", "{image: pytorch, nodes: 2, gpusPerNode: 8}");

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(job("invalid").getStatus()).isNotNull());
        assertThat(job("invalid").getStatus().phase).isEqualTo("Failed");
        assertThat(condition("invalid", "Failed").getReason()).isEqualTo("InvalidSpec");
        assertThat(condition("invalid", "Failed").getMessage()).isEqualTo("spec: exactly one of script or module must be set");
        assertThat(pods("invalid")).isEmpty();
        assertThat(client.services().inNamespace("ns").withName("invalid").get()).isNull();
    }

    @Test
    void inPlaceOnAClusterThatDoesNotRestartPodsInPlaceIsAnInvalidSpec() throws Exception {
        create("in-place", "{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8, runPolicy: {restartStrategy: InPlace}}");

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(job("in-place").getStatus()).isNotNull());
        assertThat(condition("in-place", "Failed").getReason()).isEqualTo("InvalidSpec");
        assertThat(condition("in-place", "Failed").getMessage()).startsWith("spec.runPolicy.restartStrategy is InPlace but this cluster does not "
                + "restart pods in place (Kubernetes 1.36, or gates RestartAllContainersOnContainerExits and ContainerRestartRules on");
        assertThat(pods("in-place")).isEmpty();
    }
}
