package io.railyard.agent.podresources;

import static io.railyard.agent.podresources.FakePodResources.container;
import static io.railyard.agent.podresources.FakePodResources.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.railyard.agent.AgentConfig;
import io.railyard.agent.dra.DraAgent;
import io.railyard.agent.metrics.Exposition;
import io.railyard.agent.metrics.MetricsServer;
import io.railyard.agent.metrics.RdmaPortCollector;
import io.railyard.agent.podresources.v1.ClaimResource;
import io.railyard.agent.podresources.v1.ContainerResources;
import io.railyard.agent.podresources.v1.DynamicResource;
import io.railyard.api.Names;
import io.railyard.node.NodeDiscovery;
import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import io.railyard.testkit.MovingClock;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's scrape as Prometheus sees it, with a kubelet serving PodResources on a real unix socket and pod labels
 * from the (CRUD mock) API server: each held port's allocation series joins to the port's own series.
 */
@EnableKubernetesMockClient(crud = true)
class PortAllocationTest {
    private static final String NODE = "gpu-1";
    private static final Duration MAX_AGE = Duration.ofSeconds(10);

    KubernetesClient client;
    KubernetesMockServer mockServer;
    @TempDir
    Path dir;
    HostTree tree;
    Path socket;
    MovingClock clock = new MovingClock(Instant.parse("2026-03-01T00:00:00Z"));
    FakePodResources kubelet;
    PodIdentities identities;
    PodResourcesClient podResources;
    MetricsServer server;
    PortAllocationCollector collector;

    @BeforeEach
    void node() {
        tree = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("node"));
        socket = dir.resolve("kubelet.sock");
    }

    @AfterEach
    void stop() {
        for (AutoCloseable closeable : new AutoCloseable[] {server, podResources, identities, kubelet}) {
            try {
                if (closeable != null) {
                    closeable.close();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    @Test
    void everyHeldPortJoinsToItsSeriesWithItsJobAndRank() throws Exception {
        createPod("ml", "llama-worker-1", Map.of(Names.JOB_LABEL, "llama", Names.RANK_LABEL, "1"));
        createPod("default", "notebook", Map.of("app", "jupyter"));
        kubelet = FakePodResources.serve(socket);
        kubelet.list(
                pod("ml", "llama-worker-1", container("trainer", "rdma/rdma", "mlx5_1:1", "mlx5_2:1"),
                        container("sidecar", "nvidia.com/gpu", "GPU-8f2c1d90")),
                pod("default", "notebook", container("lab", "rdma/rdma", "mlx5_3:1")),
                pod("kube-system", "gone", container("c", "rdma/rdma", "mlx5_9:1"))); // a port no longer on the node
        scrapeWith(AgentConfig.defaults(), "");
        identities = PodIdentities.watching(client.pods().inAnyNamespace()); // the mock cannot select by spec.nodeName
        await().untilAsserted(() -> assertThat(allocations(scrape())).containsEntry("mlx5_1:1",
                "container=trainer namespace=ml pod=llama-worker-1 rank=1 resource=rdma/rdma trainingjob=llama"));

        Map<String, Double> samples = Exposition.parse(Exposition.scrape(server.port()));
        assertThat(allocations(samples)).containsOnly(
                Map.entry("mlx5_1:1", "container=trainer namespace=ml pod=llama-worker-1 rank=1 resource=rdma/rdma trainingjob=llama"),
                Map.entry("mlx5_2:1", "container=trainer namespace=ml pod=llama-worker-1 rank=1 resource=rdma/rdma trainingjob=llama"),
                Map.entry("mlx5_3:1", "container=lab namespace=default pod=notebook rank= resource=rdma/rdma trainingjob="));
        // the join: every allocation names a port that has its own series, by the same two labels
        assertThat(allocations(samples).keySet()).allSatisfy(port -> assertThat(samples).containsKey(
                "railyard_rdma_state_id[device=" + port.split(":")[0] + ", port=" + port.split(":")[1] + "]"));
        assertThat(samples).containsEntry("railyard_rdma_podresources_up[]", 1.0);
    }

    @Test
    void sharedSlotsAndDraClaimsAreAttributedToThePortTheyTake() throws Exception {
        kubelet = FakePodResources.serve(socket);
        ContainerResources claimed = ContainerResources.newBuilder().setName("trainer")
                .addDynamicResources(DynamicResource.newBuilder().setClaimName("rdma-nics").setClaimNamespace("ml")
                        .addClaimResources(ClaimResource.newBuilder().setDriverName(DraAgent.DEFAULT_DRIVER).setPoolName(NODE)
                                .setDeviceName("mlx5-4-port1"))
                        .addClaimResources(ClaimResource.newBuilder().setDriverName("gpu.nvidia.com").setDeviceName("gpu-0")))
                .build();
        kubelet.list(pod("ml", "a", container("c", "rdma/rdma", "mlx5_1:1#0", "mlx5_1:1#3")), pod("ml", "b", claimed));
        scrapeWith(AgentConfig.defaults(), DraAgent.DEFAULT_DRIVER);

        assertThat(allocations(Exposition.parse(Exposition.scrape(server.port())))).containsOnly(
                Map.entry("mlx5_1:1", "container=c namespace=ml pod=a rank= resource=rdma/rdma trainingjob="),
                Map.entry("mlx5_4:1", "container=trainer namespace=ml pod=b rank= resource=rdma.railyard.io trainingjob="));
    }

    @Test
    void withoutTheKubeletTheSeriesAreAbsentAndUpIsZeroUntilItAnswers() throws Exception {
        scrapeWith(AgentConfig.defaults(), "");
        Map<String, Double> samples = Exposition.parse(Exposition.scrape(server.port()));
        assertThat(samples).containsEntry("railyard_rdma_podresources_up[]", 0.0);
        assertThat(allocations(samples)).isEmpty();
        assertThat(samples).containsKey("railyard_rdma_state_id[device=mlx5_1, port=1]"); // the ports are still scraped

        kubelet = FakePodResources.serve(socket);
        kubelet.list(pod("ml", "a", container("c", "rdma/rdma", "mlx5_2:1")));
        assertUp(scrape(), "mlx5_2:1"); // its socket appeared: asked at once
    }

    @Test
    void aKubeletWhoseSocketGoesTakesTheSeriesWithItAtTheNextScrapeAndBringsThemBack() throws Exception {
        attributedOnePort();

        kubelet.close(); // the kubelet stopped: its socket is gone
        Map<String, Double> samples = scrape(); // no time passed: the listing does not outlive its socket
        assertThat(samples).containsEntry("railyard_rdma_podresources_up[]", 0.0);
        assertThat(allocations(samples)).isEmpty();

        kubelet = FakePodResources.serve(socket); // restarted, with a socket of its own
        kubelet.list(pod("ml", "b", container("c", "rdma/rdma", "mlx5_3:1")));
        assertUp(scrape(), "mlx5_3:1");
    }

    @Test
    void aKubeletThatStartsRefusingIsSeenWithinTheListingsMaxAge() throws Exception {
        attributedOnePort();

        kubelet.refuse(io.grpc.Status.UNAVAILABLE.withDescription("pod resources server is shutting down"));
        clock.advance(MAX_AGE);

        Map<String, Double> samples = scrape();
        assertThat(samples).containsEntry("railyard_rdma_podresources_up[]", 0.0);
        assertThat(allocations(samples)).isEmpty();
    }

    @Test
    void aListingServesScrapesForAtMostThirtySeconds() {
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> new PortAllocationCollector(null, null, null, clock, Duration.ofSeconds(31))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 30 s");
    }

    @Test
    void oneListingServesTheScrapesOfItsMaxAge() throws Exception {
        kubelet = FakePodResources.serve(socket);
        kubelet.list(pod("ml", "a", container("c", "rdma/rdma", "mlx5_2:1")));
        scrapeWith(AgentConfig.defaults(), "");
        Exposition.scrape(server.port());
        kubelet.list(); // the pod ended
        clock.advance(MAX_AGE.minusSeconds(1));
        assertThat(allocations(Exposition.parse(Exposition.scrape(server.port())))).containsOnlyKeys("mlx5_2:1");
        assertThat(kubelet.calls()).isEqualTo(1);

        clock.advance(Duration.ofSeconds(1));
        assertThat(allocations(Exposition.parse(Exposition.scrape(server.port())))).isEmpty();
        assertThat(kubelet.calls()).isEqualTo(2);
    }

    @Test
    void aChangeToAPodOfTheNodeListsAgainAtTheNextScrape() throws Exception {
        kubelet = FakePodResources.serve(socket);
        kubelet.list(pod("ml", "a", container("c", "rdma/rdma", "mlx5_2:1")));
        scrapeWith(AgentConfig.defaults(), "");
        identities = PodIdentities.watching(client.pods().inAnyNamespace());
        identities.onChange(collector::markStale);
        assertThat(allocations(scrape())).containsOnlyKeys("mlx5_2:1");

        kubelet.list(pod("ml", "a", container("c", "rdma/rdma", "mlx5_2:1")), pod("ml", "llama-worker-0", container("c", "rdma/rdma", "mlx5_3:1")));
        createPod("ml", "llama-worker-0", Map.of(Names.JOB_LABEL, "llama", Names.RANK_LABEL, "0"));

        // no time passes: the pod's arrival alone makes the next scrape ask the kubelet
        await().untilAsserted(() -> assertThat(allocations(scrape())).containsEntry("mlx5_3:1",
                "container=c namespace=ml pod=llama-worker-0 rank=0 resource=rdma/rdma trainingjob=llama"));
    }

    @Test
    void identitiesWatchOnlyThePodsBoundToThisNode() throws Exception {
        identities = PodIdentities.watch(client, NODE);
        RecordedRequest request;
        do {
            request = mockServer.takeRequest(10, TimeUnit.SECONDS);
        } while (request != null && !request.getPath().contains("watch=true"));
        assertThat(request).isNotNull();
        assertThat(request.getPath()).startsWith("/api/v1/pods?").contains("fieldSelector=spec.nodeName%3D" + NODE);
    }

    /** A kubelet listing pod ml/a holding mlx5_2:1, and a scrape that attributes it. */
    private void attributedOnePort() throws Exception {
        kubelet = FakePodResources.serve(socket);
        kubelet.list(pod("ml", "a", container("c", "rdma/rdma", "mlx5_2:1")));
        scrapeWith(AgentConfig.defaults(), "");
        assertThat(allocations(scrape())).containsOnlyKeys("mlx5_2:1");
    }

    private static void assertUp(Map<String, Double> samples, String... ports) {
        assertThat(samples).containsEntry("railyard_rdma_podresources_up[]", 1.0);
        assertThat(allocations(samples)).containsOnlyKeys(ports);
    }

    private void scrapeWith(AgentConfig config, String draDriver) {
        podResources = new PodResourcesClient(socket);
        PortHolders holders = PortHolders.forNode(NodeDiscovery.discover(tree.root()), config, draDriver);
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new RdmaPortCollector(tree.root()));
        collector = new PortAllocationCollector(podResources, holders,
                (namespace, pod) -> identities == null ? PodIdentities.Identity.NONE : identities.of(namespace, pod), clock, MAX_AGE);
        registry.register(collector);
        server = MetricsServer.start(new InetSocketAddress("127.0.0.1", 0), registry);
    }

    private Map<String, Double> scrape() throws Exception {
        return Exposition.parse(Exposition.scrape(server.port()));
    }

    private void createPod(String namespace, String name, Map<String, String> labels) {
        Pod pod = new PodBuilder().withNewMetadata().withNamespace(namespace).withName(name).withLabels(labels).endMetadata()
                .withNewSpec().withNodeName(NODE).endSpec().build();
        client.pods().inNamespace(namespace).resource(pod).create();
        client.pods().inNamespace(namespace).resource(new PodBuilder(pod).editMetadata().withName(name + "-elsewhere").endMetadata()
                .editSpec().withNodeName("gpu-2").endSpec().build()).create();
    }

    /** Each allocation series by its port, with its other labels in order. */
    private static Map<String, String> allocations(Map<String, Double> samples) {
        return samples.keySet().stream().filter(key -> key.startsWith("railyard_rdma_port_allocation_info["))
                .collect(Collectors.toMap(PortAllocationTest::portOf, PortAllocationTest::othersOf));
    }

    private static String portOf(String key) {
        Map<String, String> labels = labels(key);
        return labels.get("device") + ":" + labels.get("port");
    }

    private static String othersOf(String key) {
        return labels(key).entrySet().stream().filter(e -> !e.getKey().equals("device") && !e.getKey().equals("port"))
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
    }

    private static Map<String, String> labels(String key) {
        String inner = key.substring(key.indexOf('[') + 1, key.length() - 1);
        return java.util.Arrays.stream(inner.split(", ")).map(pair -> pair.split("=", 2))
                .collect(Collectors.toMap(p -> p[0], p -> p.length > 1 ? p[1] : "", (a, b) -> a, java.util.TreeMap::new));
    }
}
