package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.Operator;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.cli.speedup.CollectiveJobs;
import io.railyard.cli.speedup.CollectiveRun;
import io.railyard.operator.model.OperatorDefaults;
import io.railyard.operator.model.TrainingJobModel;
import io.railyard.operator.preflight.PodLogs;
import io.railyard.operator.reconcile.TrainingJobReconciler;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * railyard speedup --collectives against the fabric8 CRUD mock API server with the real operator beside it: the
 * benchmark jobs are ordinary TrainingJobs the operator runs; the test plays the kubelet (the job's pods succeed) and
 * rank 0's log, which the mock does not serve.
 */
@EnableKubernetesMockClient(crud = true)
class SpeedupCollectivesTest {
    static KubernetesClient client;
    static Operator operator;
    private static final Map<CollectiveRun.Variant, Double> GIB_TIME_US = Map.of(CollectiveRun.Variant.GPUDIRECT, 11000.0,
            CollectiveRun.Variant.HOST_MEMORY, 16500.0, CollectiveRun.Variant.SOCKETS, 60000.0);

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        operator = new Operator(o -> o.withKubernetesClient(client).withCloseClientOnStop(false)
                .withUseSSAToPatchPrimaryResource(false).withSSABasedCreateUpdateMatchForDependentResources(false));
        operator.register(new TrainingJobReconciler(new OperatorDefaults("railyard:test", "rdma/rdma"), (namespace, pod) -> Optional.empty(),
                Clock.systemUTC()));
        operator.start();
    }

    @AfterAll
    static void stop() {
        operator.stop();
    }

    /** Rank 0's log of a benchmark job: the script's lines, 1 GiB's time by variant, bus bandwidth as the script computes it. */
    private static String benchmarkLog(String job) {
        CollectiveRun.Variant variant = java.util.Arrays.stream(CollectiveRun.Variant.values()).filter(v -> job.endsWith("-" + v.id)).findFirst().orElseThrow();
        StringBuilder log = new StringBuilder("NCCL INFO Bootstrap : Using eth0:10.1.0.7<0>\n");
        log.append(CollectiveJobs.MARK).append(" start ranks=16 nodes=2 nccl=2.21.5\n");
        for (long size : new long[] {1L << 20, 1L << 30}) {
            double timeUs = size == 1L << 20 ? 80 : GIB_TIME_US.get(variant);
            double algbw = size / (timeUs / 1e6) / 1e9;
            log.append(String.format(java.util.Locale.ROOT, "%s size=%d ranks=16 iters=20 time_us=%.1f algbw_gbs=%.2f busbw_gbs=%.2f%n",
                    CollectiveJobs.MARK, size, timeUs, algbw, algbw * 2 * 15 / 16));
        }
        return log.toString();
    }

    @Test
    void theThreeJobsRunOneAfterTheOtherAndTheSyncClaimIsJudged() throws Exception {
        SpeedupCluster.nodes(client, "train", 2, 4, Set.of());
        List<String> jobsSeen = new ArrayList<>();
        SharedIndexInformer<Pod> kubelet = client.pods().inNamespace("ns").withLabel(Names.JOB_LABEL).inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                synchronized (jobsSeen) {
                    String job = pod.getMetadata().getLabels().get(Names.JOB_LABEL);
                    if (!jobsSeen.contains(job)) {
                        jobsSeen.add(job);
                    }
                }
                try {
                    client.pods().inNamespace("ns").resource(new PodBuilder(pod).editSpec().withNodeName("node-0" + pod.getMetadata().getName()
                            .charAt(pod.getMetadata().getName().length() - 1)).endSpec().withNewStatus().withPhase("Succeeded").endStatus().build()).updateStatus();
                } catch (KubernetesClientException e) {
                    // deleted meanwhile
                }
            }

            @Override
            public void onUpdate(Pod before, Pod pod) {
                // the operator's own writes
            }

            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown) {
                // the job's clean-up
            }
        });
        try (SpeedupCluster cluster = new SpeedupCluster(client, "ns")) {
            PodLogs logs = (ns, name) -> name.startsWith("speedup-") && name.endsWith("-0") && !name.contains("-server") && !name.contains("-client")
                    ? Optional.of(benchmarkLog(name.substring(0, name.length() - 2))) : cluster.logs().read(ns, name);
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            CommandLine.IFactory factory = new CommandLine.IFactory() {
                @Override
                public <K> K create(Class<K> type) throws Exception {
                    return type == SpeedupCommand.class ? type.cast(new SpeedupCommand(logs)) : CommandLine.defaultFactory().create(type);
                }
            };
            int code = Railyard.run(new PrintWriter(out, true), new PrintWriter(err, true), factory, "speedup", "--kubeconfig="
                    + MockKubeconfig.write(dir, client), "-n", "ns", "--poll-ms=50", "--selector", "train=true", "--collectives", "pytorch:24.10");

            assertThat(code).as(out + "\n" + err).isZero();
            // 1 GiB: 11,000 µs with GPUDirect against 60,000 µs over sockets: 18.3%; 2^30 B / 11 ms × 30/16 = 183.02 GB/s, 5.46× 33.55
            assertThat(out.toString())
                    .contains("collectives rdma-gpudirect (RDMA with GPUDirect, as Railyard sets it, job speedup-")
                    .contains("     1 GiB    183.02 GB/s     11000.0 µs  5.46× sockets")
                    .contains("collectives rdma-host-memory (RDMA through host memory (GPUDirect off)")
                    .contains("PASS  an all-reduce of 1 GiB takes 18.3% of the sockets' time with RDMA and GPUDirect (2 nodes; claim: several times faster, ≤ 50%)")
                    .contains("----  not checked: 2 nodes, the claim is for 16 and more");
            assertThat(jobsSeen).as("one after the other, in this order").hasSize(3)
                    .allSatisfy(job -> assertThat(job).startsWith("speedup-"))
                    .satisfies(jobs -> assertThat(jobs.get(0)).endsWith("-rdma-gpudirect"))
                    .satisfies(jobs -> assertThat(jobs.get(2)).endsWith("-sockets"));
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).untilAsserted(() -> assertThat(client
                    .resources(TrainingJob.class).inNamespace("ns").list().getItems()).as("deleted after, the operator's finalizer let go").isEmpty());
            assertThat(client.configMaps().inNamespace("ns").withLabel(CollectiveJobs.SPEEDUP_LABEL).list().getItems()).isEmpty();
        } finally {
            kubelet.close();
        }
    }

    @Test
    void nodesNamedOnTheCommandLineAreTheOnlyOnesTheJobsPodsMayRunOn() {
        CollectiveJobs.Shape shape = new CollectiveJobs.Shape("ns", "run1", "pytorch:24.10", 2, 8, "rdma/rdma", 4, false, null,
                null, List.of("gpu-a17", "gpu-b03"), 1800);

        List<HasMetadata> objects = TrainingJobModel.desired(CollectiveJobs.job(shape, CollectiveRun.Variant.GPUDIRECT),
                new OperatorDefaults("railyard:test", "rdma/rdma")).objects();

        assertThat(objects.stream().filter(Pod.class::isInstance).map(Pod.class::cast).toList()).hasSize(2).allSatisfy(pod -> {
            var term = pod.getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms();
            assertThat(term).singleElement().satisfies(t -> {
                assertThat(t.getMatchFields()).singleElement().satisfies(field -> {
                    assertThat(field.getKey()).isEqualTo("metadata.name");
                    assertThat(field.getOperator()).isEqualTo("In");
                    assertThat(field.getValues()).containsExactly("gpu-a17", "gpu-b03");
                });
                assertThat(t.getMatchExpressions()).extracting("key").containsExactly(Names.RDMA_NODE_LABEL); // and still RDMA nodes only
            });
        });
    }

    @Test
    void theJobsAsRenderPrintsThemDifferOnlyInTheNcclVariables() throws Exception {
        CollectiveJobs.Shape shape = new CollectiveJobs.Shape("ns", "run1", "pytorch:24.10", 2, 8, "rdma/rdma", 4, false, "eth0",
                Map.of("train", "true"), null, 1800);
        ObjectMapper json = new ObjectMapper();
        JsonNode first = null;
        for (CollectiveRun.Variant variant : CollectiveRun.Variant.values()) {
            List<HasMetadata> objects = TrainingJobModel.desired(CollectiveJobs.job(shape, variant), new OperatorDefaults("railyard:test", "rdma/rdma")).objects();
            Pod pod = (Pod) objects.stream().filter(o -> o instanceof Pod).findFirst().orElseThrow();
            Map<String, String> env = new java.util.HashMap<>();
            pod.getSpec().getContainers().stream().filter(c -> c.getName().equals("trainer")).findFirst().orElseThrow().getEnv()
                    .forEach(e -> env.put(e.getName(), e.getValue()));
            switch (variant) {
                case GPUDIRECT -> assertThat(env).containsEntry("NCCL_IB_DISABLE", "0").containsEntry("NCCL_NET_GDR_LEVEL", "PHB");
                case HOST_MEMORY -> assertThat(env).containsEntry("NCCL_IB_DISABLE", "0").containsEntry("NCCL_NET_GDR_LEVEL", "LOC");
                case SOCKETS -> assertThat(env).containsEntry("NCCL_IB_DISABLE", "1").containsEntry("NCCL_NET_GDR_LEVEL", "PHB");
            }
            JsonNode objectsJson = json.readTree(Serialization.asJson(objects).replace(shape.jobName(variant), "JOB"));
            objectsJson.findParents("env").forEach(container -> {
                ArrayNode kept = json.createArrayNode();
                container.path("env").forEach(e -> {
                    if (!Set.of("NCCL_IB_DISABLE", "NCCL_NET_GDR_LEVEL").contains(e.path("name").asText())) {
                        kept.add(e);
                    }
                });
                ((ObjectNode) container).set("env", kept);
            });
            if (first == null) {
                first = objectsJson;
            } else {
                assertThat(objectsJson).as(variant + " against " + CollectiveRun.Variant.GPUDIRECT).isEqualTo(first);
            }
        }
        assertThat(first.toString()).contains(CollectiveJobs.MOUNT + "/" + CollectiveJobs.SCRIPT).contains("\"name\":\"speedup-run1\"");
    }
}
