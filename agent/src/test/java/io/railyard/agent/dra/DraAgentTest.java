package io.railyard.agent.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.ManagedChannel;
import io.railyard.agent.AgentConfig;
import io.railyard.agent.PluginServer;
import io.railyard.agent.dra.health.DRAResourceHealthGrpc;
import io.railyard.agent.dra.health.HealthStatus;
import io.railyard.agent.dra.health.NodeWatchResourcesRequest;
import io.railyard.agent.dra.health.NodeWatchResourcesResponse;
import io.railyard.agent.dra.registration.InfoRequest;
import io.railyard.agent.dra.registration.PluginInfo;
import io.railyard.agent.dra.registration.RegistrationGrpc;
import io.railyard.agent.dra.registration.RegistrationStatus;
import io.railyard.agent.dra.v1.Claim;
import io.railyard.agent.dra.v1.DRAPluginGrpc;
import io.railyard.agent.dra.v1.NodePrepareResourceResponse;
import io.railyard.agent.dra.v1.NodePrepareResourcesRequest;
import io.railyard.agent.dra.v1.NodeUnprepareResourcesRequest;
import io.railyard.node.NodeDiscovery;
import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DRA driver on an example node tree, with the kubelet's side played over real unix sockets (registration, both
 * DRA versions, the health stream) and the fabric8 CRUD mock API server for slices and claims (no real API server or
 * kubelet can be had here).
 */
@EnableKubernetesMockClient(crud = true)
class DraAgentTest {
    static final String DRIVER = DraAgent.DEFAULT_DRIVER;
    static final String NODE = "gpu-node-1";
    static KubernetesClient client;

    @TempDir
    Path dir;
    HostTree tree;
    DraAgent agent;
    ManagedChannel dra;

    @BeforeEach
    void start() throws Exception {
        client.resources(ResourceSlice.class).delete();
        client.nodes().delete();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
        tree = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("host"));
        Files.createDirectories(dir.resolve("plugins"));
        Files.createDirectories(dir.resolve("registry"));
        agent = startAgent();
        dra = PluginServer.dial(dir.resolve("plugins").resolve(DRIVER).resolve("dra.sock"));
    }

    DraAgent startAgent() {
        DraAgent started = DraAgent.create(NodeDiscovery.discover(tree.root()), tree.root(), AgentConfig.defaults(), client,
                new DraAgent.Options(DRIVER, dir.resolve("plugins"), dir.resolve("registry"), dir.resolve("cdi"), NODE, Duration.ofMillis(100)));
        started.start();
        return started;
    }

    @AfterEach
    void stop() {
        dra.shutdownNow();
        agent.close();
    }

    private List<ResourceSlice> slices() {
        return client.resources(ResourceSlice.class).list().getItems();
    }

    private static Device device(List<ResourceSlice> slices, String name) {
        return slices.stream().flatMap(s -> s.getSpec().getDevices().stream()).filter(d -> d.getName().equals(name)).findFirst().orElseThrow();
    }

    /** A claim as the scheduler leaves it: allocated devices of a driver and pool, by request. */
    private ResourceClaim claim(String name, String driver, String pool, Map<String, List<String>> devicesByRequest) {
        ResourceClaimBuilder claim = new ResourceClaimBuilder().withNewMetadata().withName(name).withNamespace("ns").endMetadata()
                .withNewSpec().endSpec().withNewStatus().withNewAllocation().withNewDevices().endDevices().endAllocation().endStatus();
        devicesByRequest.forEach((request, devices) -> devices.forEach(device -> claim.editStatus().editAllocation().editDevices()
                .addNewResult().withDriver(driver).withPool(pool).withDevice(device).withRequest(request).endResult()
                .endDevices().endAllocation().endStatus()));
        return client.resource(claim.build()).create();
    }

    private NodePrepareResourceResponse prepare(ResourceClaim claim) {
        Claim ref = Claim.newBuilder().setNamespace("ns").setName(claim.getMetadata().getName()).setUid(claim.getMetadata().getUid()).build();
        return DRAPluginGrpc.newBlockingStub(dra).nodePrepareResources(NodePrepareResourcesRequest.newBuilder().addClaims(ref).build())
                .getClaimsOrThrow(claim.getMetadata().getUid());
    }

    private String unprepare(String uid) {
        Claim ref = Claim.newBuilder().setNamespace("ns").setName("any").setUid(uid).build();
        return DRAPluginGrpc.newBlockingStub(dra).nodeUnprepareResources(NodeUnprepareResourcesRequest.newBuilder().addClaims(ref).build())
                .getClaimsOrThrow(uid).getError();
    }

    private String uverbsOf(String hca) throws Exception {
        try (Stream<Path> files = Files.list(tree.root().resolve("sys/class/infiniband").resolve(hca).resolve("device/infiniband_verbs"))) {
            return "/dev/infiniband/" + files.findFirst().orElseThrow().getFileName();
        }
    }

    @Test
    void theKubeletsPluginWatcherLearnsWhatAndWhereTheDriverIs() {
        ManagedChannel registration = PluginServer.dial(dir.resolve("registry").resolve(DRIVER + "-reg.sock"));
        try {
            PluginInfo info = RegistrationGrpc.newBlockingStub(registration).getInfo(InfoRequest.getDefaultInstance());
            assertThat(info.getType()).isEqualTo("DRAPlugin");
            assertThat(info.getName()).isEqualTo("rdma.railyard.io");
            assertThat(info.getEndpoint()).isEqualTo(dir.resolve("plugins/rdma.railyard.io/dra.sock").toString());
            assertThat(info.getSupportedVersionsList()).containsExactly("v1.DRAPlugin", "v1beta1.DRAPlugin");
            RegistrationGrpc.newBlockingStub(registration).notifyRegistrationStatus(RegistrationStatus.newBuilder().setPluginRegistered(true).build());
        } finally {
            registration.shutdownNow();
        }
    }

    @Test
    void everyPortIsADeviceWithTheAttributesASchedulerMatchesOn() throws Exception {
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(slices()).hasSize(1));
        ResourceSlice slice = slices().getFirst();

        assertThat(slice.getSpec().getDriver()).isEqualTo(DRIVER);
        assertThat(slice.getSpec().getNodeName()).isEqualTo(NODE);
        assertThat(slice.getSpec().getPool().getName()).isEqualTo(NODE);
        assertThat(slice.getSpec().getPool().getResourceSliceCount()).isEqualTo(1L);
        assertThat(slice.getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> {
            assertThat(owner.getKind()).isEqualTo("Node");
            assertThat(owner.getUid()).isEqualTo(client.nodes().withName(NODE).get().getMetadata().getUid());
        });
        assertThat(slice.getSpec().getDevices()).extracting(Device::getName).containsExactly("mlx5-1-port1", "mlx5-2-port1", "mlx5-3-port1", "mlx5-4-port1");
        var attributes = device(slices(), "mlx5-1-port1").getAttributes();
        // the kernel's own link for the PCI function: /sys/devices/pci0000:10/... → the root is its first directory
        Path pci = tree.root().resolve("sys/class/infiniband/mlx5_1/device").toRealPath();
        String root = tree.root().resolve("sys/devices").toRealPath().relativize(pci).getName(0).toString();
        assertThat(attributes.get("resource.kubernetes.io/pcieRoot").getString()).isEqualTo(root).isEqualTo("pci0000:10");
        assertThat(attributes.get("ibDevice").getString()).isEqualTo("mlx5_1");
        assertThat(attributes.get("port").getInt()).isEqualTo(1L);
        assertThat(attributes.get("linkLayer").getString()).isEqualTo("Ethernet");
        assertThat(attributes.get("rateGbps").getInt()).isEqualTo(200L);
        assertThat(attributes.get("gidIndex").getInt()).isEqualTo(3L);
        assertThat(attributes.get("firmware").getVersion()).isEqualTo("22.39.1002");
        assertThat(attributes.get("healthy").getBool()).isTrue();
        assertThat(attributes.get("numaNode").getInt()).isNotNull();
        assertThat(attributes.get("netdev").getString()).isNotBlank();
    }

    @Test
    void aClaimIsPreparedThroughOneCdiSpecWithItsDevicesAndNcclsVariables() throws Exception {
        ResourceClaim claim = claim("two-nics", DRIVER, NODE, Map.of("nics", List.of("mlx5-1-port1", "mlx5-3-port1")));

        NodePrepareResourceResponse response = prepare(claim);

        String uid = claim.getMetadata().getUid();
        assertThat(response.getError()).isEmpty();
        assertThat(response.getDevicesList()).hasSize(2).allSatisfy(device -> {
            assertThat(device.getPoolName()).isEqualTo(NODE);
            assertThat(device.getRequestNamesList()).containsExactly("nics");
            assertThat(device.getCdiDeviceIdsList()).containsExactly("k8s.rdma.railyard.io/claim=" + uid + "-nics");
        });
        Path file = dir.resolve("cdi").resolve("k8s.rdma.railyard.io-claim_" + uid + ".json");
        JsonNode spec = new ObjectMapper().readTree(file.toFile());
        assertThat(cdiSchema().validate(spec)).isEmpty();
        assertThat(cdiSchema().validate(new ObjectMapper().readTree("{\"cdiVersion\":\"0.5.0\",\"kind\":\"a/b\",\"devices\":[{\"name\":\"x\"}]}")))
                .as("the schema can fail: a device without containerEdits").isNotEmpty();
        assertThat(spec.path("kind").asText()).isEqualTo("k8s.rdma.railyard.io/claim");
        JsonNode edits = spec.path("devices").get(0).path("containerEdits");
        assertThat(edits.path("deviceNodes")).extracting(n -> n.path("path").asText())
                .contains(uverbsOf("mlx5_1"), uverbsOf("mlx5_3"), "/dev/infiniband/rdma_cm").doesNotContain(uverbsOf("mlx5_2"))
                .as("no management datagrams for a claim").noneMatch(path -> path.contains("/umad"));
        assertThat(edits.path("env")).extracting(JsonNode::asText).contains("NCCL_IB_HCA==mlx5_1:1,mlx5_3:1", "NCCL_IB_GID_INDEX=3",
                        "UCX_NET_DEVICES=mlx5_1:1,mlx5_3:1", "NVSHMEM_HCA_LIST=mlx5_1:1,mlx5_3:1", "NVSHMEM_ENABLE_NIC_PE_MAPPING=1")
                .anySatisfy(env -> assertThat(env).startsWith("RAILYARD_GPU_NICS=0=mlx5_1:1,"))
                .anySatisfy(env -> assertThat(env).startsWith("RAILYARD_RDMA_DEVICES=[{\"hca\":\"mlx5_1\""));

        assertThat(prepare(claim).getDevicesList()).as("idempotent").isEqualTo(response.getDevicesList());
        assertThat(unprepare(uid)).isEmpty();
        assertThat(file).doesNotExist();
        assertThat(unprepare(UUID.randomUUID().toString())).as("an unknown claim is already unprepared").isEmpty();
    }

    @Test
    void v1beta1KubeletsArePreparedTheSameWayWithOneCdiDevicePerRequest() {
        ResourceClaim claim = claim("pairs", DRIVER, NODE, Map.of("nic0", List.of("mlx5-1-port1"), "nic1", List.of("mlx5-2-port1")));
        var ref = io.railyard.agent.dra.v1beta1.Claim.newBuilder().setNamespace("ns").setName("pairs").setUid(claim.getMetadata().getUid()).build();

        var response = io.railyard.agent.dra.v1beta1.DRAPluginGrpc.newBlockingStub(dra).nodePrepareResources(
                io.railyard.agent.dra.v1beta1.NodePrepareResourcesRequest.newBuilder().addClaims(ref).build()).getClaimsOrThrow(claim.getMetadata().getUid());

        assertThat(response.getError()).isEmpty();
        assertThat(response.getDevicesList()).extracting(d -> d.getDeviceName() + " " + d.getCdiDeviceIds(0)).containsExactlyInAnyOrder(
                "mlx5-1-port1 k8s.rdma.railyard.io/claim=" + claim.getMetadata().getUid() + "-nic0",
                "mlx5-2-port1 k8s.rdma.railyard.io/claim=" + claim.getMetadata().getUid() + "-nic1");
    }

    @Test
    void claimsForAnotherNodeOrDriverOrAStaleUidAreRefusedWithTheReason() {
        assertThat(prepare(claim("elsewhere", DRIVER, "gpu-node-2", Map.of("nics", List.of("mlx5-1-port1")))).getError())
                .isEqualTo("ResourceClaim ns/elsewhere allocates mlx5-1-port1 from pool gpu-node-2, not this node's pool gpu-node-1");
        assertThat(prepare(claim("gpus", "gpu.nvidia.com", NODE, Map.of("gpus", List.of("gpu-0")))).getError())
                .isEqualTo("ResourceClaim ns/gpus allocates no device of driver rdma.railyard.io");
        assertThat(prepare(claim("phantom", DRIVER, NODE, Map.of("nics", List.of("mlx5-9-port1")))).getError())
                .startsWith("ResourceClaim ns/phantom allocates mlx5-9-port1, which pool gpu-node-1 does not have");
        ResourceClaim stale = claim("stale", DRIVER, NODE, Map.of("nics", List.of("mlx5-1-port1")));
        Claim ref = Claim.newBuilder().setNamespace("ns").setName("stale").setUid("00000000-0000-0000-0000-000000000000").build();
        assertThat(DRAPluginGrpc.newBlockingStub(dra).nodePrepareResources(NodePrepareResourcesRequest.newBuilder().addClaims(ref).build())
                .getClaimsOrThrow(ref.getUid()).getError()).startsWith("ResourceClaim ns/stale has UID " + stale.getMetadata().getUid());
    }

    @Test
    void aPortGoingDownUpdatesTheSliceAndTheHealthStream() throws Exception {
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(slices()).hasSize(1));
        long generation = slices().getFirst().getSpec().getPool().getGeneration();
        Iterator<NodeWatchResourcesResponse> stream = DRAResourceHealthGrpc.newBlockingStub(dra).nodeWatchResources(NodeWatchResourcesRequest.getDefaultInstance());
        assertThat(stream.next().getDevicesList()).hasSize(4).allSatisfy(d -> assertThat(d.getHealth()).isEqualTo(HealthStatus.HEALTHY));

        tree.port("mlx5_2", 1, "1: DOWN", "3: Disabled", "200 Gb/sec (2X HDR)", "Ethernet", 0, 0);

        await().atMost(Duration.ofSeconds(2)).untilAsserted(() ->
                assertThat(device(slices(), "mlx5-2-port1").getAttributes().get("healthy").getBool()).isFalse());
        assertThat(slices().getFirst().getSpec().getPool().getGeneration()).isGreaterThan(generation);
        assertThat(stream.next().getDevicesList()).filteredOn(d -> d.getHealth() == HealthStatus.UNHEALTHY)
                .singleElement().satisfies(d -> assertThat(d.getDevice().getDeviceName()).isEqualTo("mlx5-2-port1"));
        assertThat(prepare(claim("down", DRIVER, NODE, Map.of("nics", List.of("mlx5-2-port1")))).getError())
                .startsWith("ResourceClaim ns/down allocates mlx5-2-port1, which is unhealthy: port mlx5_2:1 is DOWN");
    }

    @Test
    void anHcaThatAppearsAfterStartJoinsThePool() throws Exception {
        agent.close();
        Path link = tree.root().resolve("sys/class/infiniband/mlx5_4");
        Path away = dir.resolve("mlx5_4-away");
        Files.move(link, away); // the driver not loaded yet for this HCA
        agent = startAgent();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(slices()).singleElement()
                .satisfies(s -> assertThat(s.getSpec().getDevices()).hasSize(3)));
        long generation = slices().getFirst().getSpec().getPool().getGeneration();

        Files.move(away, link);

        await().atMost(Duration.ofSeconds(2)).untilAsserted(() -> assertThat(slices().getFirst().getSpec().getDevices()).hasSize(4));
        assertThat(slices().getFirst().getSpec().getPool().getGeneration()).isGreaterThan(generation);
        assertThat(prepare(claim("new-hca", DRIVER, NODE, Map.of("nics", List.of("mlx5-4-port1")))).getError()).isEmpty();
    }

    @Test
    void anHcaThatGoesAwayStaysInThePoolUnhealthyAndIsNotPrepared() throws Exception {
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(slices()).hasSize(1));
        Path device = tree.root().resolve("sys/class/infiniband/mlx5_3").toRealPath();

        // the driver unbinds the HCA: its class link, its sysfs directory and its device nodes go
        String uverbs = uverbsOf("mlx5_3").substring(1);
        tree.remove("sys/class/infiniband/mlx5_3").remove(tree.root().relativize(device).toString()).remove(uverbs);

        await().atMost(Duration.ofSeconds(2)).untilAsserted(() ->
                assertThat(device(slices(), "mlx5-3-port1").getAttributes().get("healthy").getBool()).isFalse());
        assertThat(slices().getFirst().getSpec().getDevices()).hasSize(4);
        assertThat(device(slices(), "mlx5-1-port1").getAttributes().get("healthy").getBool()).isTrue();
        assertThat(prepare(claim("gone", DRIVER, NODE, Map.of("nics", List.of("mlx5-3-port1")))).getError())
                .startsWith("ResourceClaim ns/gone allocates mlx5-3-port1, which is unhealthy");
    }

    @Test
    void aDeletedSliceIsWrittenAgain() {
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(slices()).hasSize(1));

        client.resources(ResourceSlice.class).delete();

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(slices()).hasSize(1));
        assertThat(slices().getFirst().getSpec().getDevices()).hasSize(4);
    }

    @Test
    void aResourcesTopologyFileByTheNodesLabelIsMountedThroughTheClaimsCdiSpec() throws Exception {
        Path topology = Files.writeString(dir.resolve("vm-topo.xml"), "<system version=\"1\"/>\n");
        client.nodes().withName(NODE).edit(node -> {
            node.getMetadata().setLabels(Map.of("node.kubernetes.io/instance-type", "big-vm"));
            return node;
        });
        dra.shutdownNow();
        agent.close();
        AgentConfig config = AgentConfig.load(Files.writeString(dir.resolve("agent.yaml"), "resources: [{name: rdma/rdma, topology: "
                + "{nodeLabel: node.kubernetes.io/instance-type, files: {big-vm: '" + topology + "'}}}]\n"));
        agent = DraAgent.create(NodeDiscovery.discover(tree.root()), tree.root(), config, client,
                new DraAgent.Options(DRIVER, dir.resolve("plugins"), dir.resolve("registry"), dir.resolve("cdi"), NODE, Duration.ofMillis(100)));
        agent.start();
        dra = PluginServer.dial(dir.resolve("plugins").resolve(DRIVER).resolve("dra.sock"));
        ResourceClaim claim = claim("topo", DRIVER, NODE, Map.of("nics", List.of("mlx5-1-port1")));

        assertThat(prepare(claim).getError()).isEmpty();
        JsonNode spec = new ObjectMapper().readTree(dir.resolve("cdi").resolve("k8s.rdma.railyard.io-claim_" + claim.getMetadata().getUid() + ".json").toFile());
        assertThat(cdiSchema().validate(spec)).isEmpty();
        JsonNode edits = spec.path("devices").get(0).path("containerEdits");
        assertThat(edits.path("env")).extracting(JsonNode::asText).contains("NCCL_TOPO_FILE=/etc/railyard/nccl-topo.xml");
        JsonNode mount = edits.path("mounts").get(0);
        assertThat(mount.path("containerPath").asText()).isEqualTo("/etc/railyard/nccl-topo.xml");
        assertThat(Path.of(mount.path("hostPath").asText())).startsWith(dir.resolve("plugins")).hasSameTextualContentAs(topology);
        assertThat(mount.path("options")).extracting(JsonNode::asText).contains("ro", "bind");
    }

    @Test
    void aClaimOnARailOptimizedRoceFabricGetsNcclsTuningFromTheNodesLabels() throws Exception {
        client.nodes().withName(NODE).edit(node -> {
            node.getMetadata().setLabels(Map.of("railyard.io/fabric.shape", "rail-optimized", "railyard.io/fabric.tiers", "3"));
            return node;
        });
        dra.shutdownNow();
        agent.close();
        agent = startAgent(); // the labels are read as the agent starts
        dra = PluginServer.dial(dir.resolve("plugins").resolve(DRIVER).resolve("dra.sock"));
        ResourceClaim claim = claim("tuned", DRIVER, NODE, Map.of("nics", List.of("mlx5-1-port1", "mlx5-2-port1")));

        assertThat(prepare(claim).getError()).isEmpty();
        JsonNode spec = new ObjectMapper().readTree(dir.resolve("cdi").resolve("k8s.rdma.railyard.io-claim_" + claim.getMetadata().getUid() + ".json").toFile());
        assertThat(spec.path("devices").get(0).path("containerEdits").path("env")).extracting(JsonNode::asText)
                .contains("NCCL_CROSS_NIC=0", "NCCL_IB_QPS_PER_CONNECTION=4", "NCCL_IB_SPLIT_DATA_ON_QPS=0")
                .anySatisfy(env -> assertThat(env).startsWith("RAILYARD_NCCL_TUNING=NCCL_CROSS_NIC=0 (rail-optimized fabric"));
    }

    @Test
    void aDeletedSocketIsServedAgain() throws Exception {
        Path socket = dir.resolve("plugins").resolve(DRIVER).resolve("dra.sock");
        Files.delete(socket);

        await().atMost(Duration.ofSeconds(2)).until(() -> Files.exists(socket));
        assertThat(prepare(claim("again", DRIVER, NODE, Map.of("nics", List.of("mlx5-1-port1")))).getError()).isEmpty();
    }

    @Test
    void aRestartedAgentStillUnpreparesWhatItPrepared() throws Exception {
        ResourceClaim claim = claim("kept", DRIVER, NODE, Map.of("nics", List.of("mlx5-4-port1")));
        assertThat(prepare(claim).getError()).isEmpty();
        Path file = dir.resolve("cdi").resolve("k8s.rdma.railyard.io-claim_" + claim.getMetadata().getUid() + ".json");
        assertThat(file).exists();

        agent.close();
        client.resource(claim).delete(); // the claim may be gone before the kubelet unprepares it
        agent = startAgent();

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(unprepare(claim.getMetadata().getUid())).isEmpty());
        assertThat(file).doesNotExist();
        assertThat(dir.resolve("plugins").resolve(DRIVER).resolve("claims")).isEmptyDirectory();
    }

    @Test
    void aCheckpointCutShortByAKilledAgentIsDroppedAndTheClaimPreparedAgain() throws Exception {
        ResourceClaim claim = claim("cut", DRIVER, NODE, Map.of("nics", List.of("mlx5-2-port1")));
        assertThat(prepare(claim).getError()).isEmpty();
        Path entry = dir.resolve("plugins").resolve(DRIVER).resolve("claims").resolve(claim.getMetadata().getUid() + ".json");
        assertThat(entry).exists();

        agent.close();
        Files.writeString(entry, "{\"namespace\":\"ns\",\"na");
        Path halfWritten = Files.writeString(entry.resolveSibling("." + claim.getMetadata().getUid() + ".tmp"), "{\"names");
        Files.delete(dir.resolve("cdi").resolve("k8s.rdma.railyard.io-claim_" + claim.getMetadata().getUid() + ".json"));
        agent = startAgent();

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(prepare(claim).getError()).isEmpty());
        assertThat(prepare(claim).getDevicesList()).extracting(d -> d.getDeviceName()).containsExactly("mlx5-2-port1");
        assertThat(entry).content().contains("mlx5-2-port1");
        assertThat(halfWritten).doesNotExist();
    }

    @Test
    void aClaimUidThatIsNoUidIsRefusedAndNoFileTouched() throws Exception {
        Path outside = Files.writeString(dir.resolve("plugins").resolve(DRIVER).resolve("keep.json"), "{}");

        assertThat(unprepare("../keep")).isEqualTo("claim ns/any has UID \"../keep\", which is not a Kubernetes UID: nothing done");
        assertThat(outside).exists();
    }

    /** The CDI project's schema (test resources), its defs.json references resolved into one document. */
    static Schema cdiSchema() throws Exception {
        ObjectMapper json = new ObjectMapper();
        try (InputStream schema = DraAgentTest.class.getResourceAsStream("/cdi-schema/schema.json");
                InputStream defs = DraAgentTest.class.getResourceAsStream("/cdi-schema/defs.json")) {
            ObjectNode root = (ObjectNode) json.readTree(new String(schema.readAllBytes()).replace("defs.json#/definitions/", "#/definitions/"));
            root.set("definitions", json.readTree(defs).path("definitions"));
            return SchemaRegistry.withDialect(Dialects.getDraft7()).getSchema(root);
        }
    }
}
