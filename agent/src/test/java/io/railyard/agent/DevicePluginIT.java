package io.railyard.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.railyard.agent.v1beta1.AllocateRequest;
import io.railyard.agent.v1beta1.ContainerAllocateRequest;
import io.railyard.agent.v1beta1.ContainerAllocateResponse;
import io.railyard.agent.v1beta1.ContainerPreferredAllocationRequest;
import io.railyard.agent.v1beta1.Device;
import io.railyard.agent.v1beta1.DeviceSpec;
import io.railyard.agent.v1beta1.DevicePluginGrpc;
import io.railyard.agent.v1beta1.Empty;
import io.railyard.agent.v1beta1.ListAndWatchResponse;
import io.railyard.agent.v1beta1.PreferredAllocationRequest;
import io.railyard.agent.v1beta1.RegisterRequest;
import io.railyard.node.NodeDiscovery;
import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent against a fake kubelet speaking the device plugin protocol over real unix sockets. */
class DevicePluginIT {
    private static final String ENDPOINT = "railyard-rdma-rdma.sock";

    @TempDir
    Path dir;
    HostTree tree;
    FakeKubelet kubelet;
    DevicePluginAgent agent;
    ManagedChannel channel;

    private DevicePluginGrpc.DevicePluginBlockingStub start(String node, AgentConfig config) throws Exception {
        return start(node, config, changed -> { });
    }

    /** With the example tree changed before the agent reads it. */
    private DevicePluginGrpc.DevicePluginBlockingStub start(String node, AgentConfig config, java.util.function.Consumer<HostTree> change)
            throws Exception {
        HostTree written = ExampleNodes.write(node, dir.resolve("host"));
        change.accept(written);
        return startOn(written, config, Map.of());
    }

    /** On a tree, with the node labels the agent read at its start. */
    private DevicePluginGrpc.DevicePluginBlockingStub startOn(HostTree host, AgentConfig config, Map<String, String> nodeLabels) throws Exception {
        tree = host;
        Path plugins = Files.createDirectories(dir.resolve("device-plugins"));
        kubelet = FakeKubelet.start(plugins);
        agent = DevicePluginAgent.create(NodeDiscovery.discover(tree.root()), tree.root(), plugins, config, Duration.ofMillis(100), nodeLabels);
        agent.start();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(kubelet.registrations()).isNotEmpty());
        channel = kubelet.dial(kubelet.registrations().getFirst().getEndpoint());
        return DevicePluginGrpc.newBlockingStub(channel);
    }

    @AfterEach
    void stop() {
        if (channel != null) {
            channel.shutdownNow();
        }
        if (agent != null) {
            agent.close();
        }
        if (kubelet != null) {
            kubelet.close();
        }
    }

    @Test
    void registersWithTheKubelet() throws Exception {
        start(ExampleNodes.ROCE, AgentConfig.defaults());

        RegisterRequest request = kubelet.registrations().getFirst();
        assertThat(request.getVersion()).isEqualTo("v1beta1");
        assertThat(request.getEndpoint()).isEqualTo(ENDPOINT);
        assertThat(request.getResourceName()).isEqualTo("rdma/rdma");
        assertThat(request.getOptions().getGetPreferredAllocationAvailable()).isTrue();
        assertThat(agent.isServingAndRegistered()).isTrue();
    }

    @Test
    void listsOneHealthyDevicePerPortWithItsNumaNode() throws Exception {
        DevicePluginGrpc.DevicePluginBlockingStub plugin = start(ExampleNodes.ROCE, AgentConfig.defaults());

        ListAndWatchResponse first = plugin.listAndWatch(Empty.getDefaultInstance()).next();

        assertThat(first.getDevicesList()).extracting(Device::getID).containsExactly("mlx5_1:1", "mlx5_2:1", "mlx5_3:1", "mlx5_4:1");
        assertThat(first.getDevicesList()).extracting(Device::getHealth).containsOnly("Healthy");
        assertThat(first.getDevicesList()).extracting(d -> d.getTopology().getNodes(0).getID()).containsExactly(0L, 0L, 1L, 1L);
    }

    @Test
    void portGoingDownAndUpIsStreamed() throws Exception {
        start(ExampleNodes.ROCE, AgentConfig.defaults());
        List<ListAndWatchResponse> updates = watch();
        await().untilAsserted(() -> assertThat(updates).hasSize(1));
        var steady = agent.portHealth();
        // node health tells a poll that changed nothing by the same map: polls go by, it stays the same object
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> agent.portHealth() == steady);

        tree.file(tree.portDir("mlx5_2", 1) + "/state", "1: DOWN");
        tree.file(tree.portDir("mlx5_2", 1) + "/phys_state", "2: Polling");

        await().atMost(Duration.ofMillis(1500)).untilAsserted(() -> assertThat(health(updates.getLast(), "mlx5_2:1")).isEqualTo("Unhealthy"));
        assertThat(health(updates.getLast(), "mlx5_1:1")).isEqualTo("Healthy");
        assertThat(agent.portHealth()).isNotSameAs(steady);
        assertThat(agent.portHealth().get("mlx5_2:1").healthy()).isFalse();

        tree.file(tree.portDir("mlx5_2", 1) + "/state", "4: ACTIVE");
        tree.file(tree.portDir("mlx5_2", 1) + "/phys_state", "5: LinkUp");

        await().atMost(Duration.ofMillis(1500)).untilAsserted(() -> assertThat(health(updates.getLast(), "mlx5_2:1")).isEqualTo("Healthy"));
        int sent = updates.size();
        await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(2)).untilAsserted(() -> assertThat(updates).hasSize(sent));
    }

    @Test
    void anHcaThatAppearsAfterStartIsAdvertisedAndTheOthersKeepTheirAllocations() throws Exception {
        tree = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("host"));
        Path classLink = tree.root().resolve("sys/class/infiniband/mlx5_4");
        Path target = Files.readSymbolicLink(classLink);
        Files.delete(classLink);   // as before the driver bound the device
        Path plugins = Files.createDirectories(dir.resolve("device-plugins"));
        kubelet = FakeKubelet.start(plugins);
        agent = DevicePluginAgent.create(NodeDiscovery.discover(tree.root()), tree.root(), plugins, AgentConfig.defaults(), Duration.ofMillis(100));
        agent.start();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(kubelet.registrations()).isNotEmpty());
        channel = kubelet.dial(kubelet.registrations().getFirst().getEndpoint());
        DevicePluginGrpc.DevicePluginBlockingStub plugin = DevicePluginGrpc.newBlockingStub(channel);
        List<ListAndWatchResponse> updates = watch();
        await().untilAsserted(() -> assertThat(updates).isNotEmpty());
        assertThat(updates.getFirst().getDevicesList()).extracting(Device::getID).containsExactly("mlx5_1:1", "mlx5_2:1", "mlx5_3:1");
        plugin.allocate(request("mlx5_1:1"));

        Files.createSymbolicLink(classLink, target);   // the driver binds it: the kernel adds the class entry

        await().atMost(Duration.ofSeconds(2)).untilAsserted(() -> assertThat(updates.getLast().getDevicesList()).extracting(Device::getID)
                .containsExactly("mlx5_1:1", "mlx5_2:1", "mlx5_3:1", "mlx5_4:1"));
        assertThat(updates.getLast().getDevicesList()).extracting(Device::getHealth).containsOnly("Healthy");
        assertThat(plugin.allocate(request("mlx5_4:1")).getContainerResponses(0).getEnvsMap()).containsEntry("NCCL_IB_HCA", "=mlx5_4:1");
        assertThat(agent.plugins().getFirst().allocationCounts()).containsEntry("mlx5_1:1", 1L).containsEntry("mlx5_4:1", 1L);
    }

    @Test
    void vanishedUverbsNodeMakesThePortUnhealthyAndAllocateRefusesIt() throws Exception {
        DevicePluginGrpc.DevicePluginBlockingStub plugin = start(ExampleNodes.ROCE, AgentConfig.defaults());
        List<ListAndWatchResponse> updates = watch();

        tree.remove("dev/infiniband/uverbs2");

        await().atMost(Duration.ofMillis(1500)).untilAsserted(() -> assertThat(health(updates.getLast(), "mlx5_3:1")).isEqualTo("Unhealthy"));
        assertThatThrownBy(() -> plugin.allocate(request("mlx5_3:1")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
                    assertThat(e.getStatus().getDescription())
                            .isEqualTo("device mlx5_3:1 is unhealthy: /dev/infiniband/uverbs2 of mlx5_3 is missing");
                });
    }

    @Test
    void allocateMountsTheAllocatedHcasAndWritesNcclVariables() throws Exception {
        DevicePluginGrpc.DevicePluginBlockingStub plugin = start(ExampleNodes.ROCE, AgentConfig.defaults());

        ContainerAllocateResponse response = plugin.allocate(request("mlx5_3:1", "mlx5_4:1")).getContainerResponses(0);

        assertThat(response.getDevicesList()).extracting(DeviceSpec::getHostPath).as("verbs and rdma_cm: no umad for a training container")
                .containsExactlyInAnyOrder("/dev/infiniband/uverbs2", "/dev/infiniband/uverbs3", "/dev/infiniband/rdma_cm");
        assertThat(response.getDevicesList()).allMatch(d -> d.getPermissions().equals("rw") && d.getContainerPath().equals(d.getHostPath()));
        assertThat(response.getEnvsMap())
                .containsEntry("NCCL_IB_HCA", "=mlx5_3:1,mlx5_4:1")
                .containsEntry("NCCL_IB_GID_INDEX", "3");
        JsonNode devices = new ObjectMapper().readTree(response.getEnvsOrThrow("RAILYARD_RDMA_DEVICES"));
        assertThat(devices).hasSize(2);
        assertThat(devices.get(0).toString()).isEqualTo(
                "{\"hca\":\"mlx5_3\",\"port\":1,\"linkLayer\":\"Ethernet\",\"netdev\":\"eth3\",\"gidIndex\":3,\"numaNode\":1,\"pciAddress\":\"0000:95:00.0\"}");
    }

    @Test
    void theAnswerListsThePortsInDeviceOrderWhateverOrderTheKubeletAskedIn() throws Exception {
        DevicePluginGrpc.DevicePluginBlockingStub plugin = start(ExampleNodes.TWELVE_HCAS, AgentConfig.defaults());

        // the kubelet's device IDs are a set: two nodes of one job may ask in different orders
        ContainerAllocateResponse one = plugin.allocate(request("mlx5_10:1", "mlx5_2:1", "mlx5_1:1")).getContainerResponses(0);
        ContainerAllocateResponse other = plugin.allocate(request("mlx5_1:1", "mlx5_10:1", "mlx5_2:1")).getContainerResponses(0);

        assertThat(one.getEnvsMap()).containsEntry("NCCL_IB_HCA", "=mlx5_1:1,mlx5_2:1,mlx5_10:1");
        assertThat(one.getEnvsOrThrow("RAILYARD_RDMA_DEVICES")).isEqualTo(other.getEnvsOrThrow("RAILYARD_RDMA_DEVICES"));
        assertThat(new ObjectMapper().readTree(one.getEnvsOrThrow("RAILYARD_RDMA_DEVICES"))).extracting(d -> d.path("hca").asText())
                .containsExactly("mlx5_1", "mlx5_2", "mlx5_10");
    }

    @Test
    void unknownDeviceIsRefusedByName() throws Exception {
        DevicePluginGrpc.DevicePluginBlockingStub plugin = start(ExampleNodes.ROCE, AgentConfig.defaults());

        assertThatThrownBy(() -> plugin.allocate(request("mlx5_9:1")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription()).startsWith("unknown device mlx5_9:1");
                });
    }

    @Test
    void twelveHcasDoNotConfuseMlx51WithMlx510() throws Exception {
        DevicePluginGrpc.DevicePluginBlockingStub plugin = start(ExampleNodes.TWELVE_HCAS, AgentConfig.defaults());

        ContainerAllocateResponse response = plugin.allocate(request("mlx5_1:1")).getContainerResponses(0);

        assertThat(response.getEnvsMap()).containsEntry("NCCL_IB_HCA", "=mlx5_1:1");
        assertThat(response.getDevicesList()).extracting(DeviceSpec::getHostPath)
                .containsExactlyInAnyOrder("/dev/infiniband/uverbs1", "/dev/infiniband/rdma_cm");
    }

    @Test
    void onlyAResourceThatAsksForManagementDatagramsGetsThePortsUmad() throws Exception {
        AgentConfig probe = new AgentConfig(List.of(new ResourceConfig("railyard.io/fabric-probe", ResourceConfig.Mode.SHARED, 4,
                PortSelector.ANY, true)));
        DevicePluginGrpc.DevicePluginBlockingStub plugin = start(ExampleNodes.ROCE, probe);
        String slot = plugin.listAndWatch(Empty.getDefaultInstance()).next().getDevicesList().stream().map(Device::getID)
                .filter(id -> id.startsWith("mlx5_3:1")).findFirst().orElseThrow();

        ContainerAllocateResponse response = plugin.allocate(request(slot)).getContainerResponses(0);

        assertThat(response.getDevicesList()).extracting(DeviceSpec::getHostPath)
                .containsExactlyInAnyOrder("/dev/infiniband/uverbs2", "/dev/infiniband/umad2", "/dev/infiniband/rdma_cm");
    }

    @Test
    void registersAgainAfterTheKubeletRestarts() throws Exception {
        start(ExampleNodes.ROCE, AgentConfig.defaults());

        kubelet.restart();

        // that it registers again; how soon (milliseconds) is bench/device-plugin.sh's to measure: a loaded machine took over 1 s
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(kubelet.registrations()).hasSize(2));
        assertThat(Files.exists(dir.resolve("device-plugins").resolve(ENDPOINT))).isTrue();
        channel.shutdownNow();
        channel = kubelet.dial(ENDPOINT);
        assertThat(DevicePluginGrpc.newBlockingStub(channel).listAndWatch(Empty.getDefaultInstance()).next().getDevicesCount()).isEqualTo(4);
    }

    @Test
    void streamClosedByTheKubeletIsForgotten() throws Exception {
        start(ExampleNodes.ROCE, AgentConfig.defaults());
        RdmaDevicePlugin plugin = agent.plugins().getFirst();
        ManagedChannel second = kubelet.dial(ENDPOINT);
        DevicePluginGrpc.newStub(second).listAndWatch(Empty.getDefaultInstance(), new Collector(new CopyOnWriteArrayList<>()));
        await().untilAsserted(() -> assertThat(plugin.watcherCount()).isEqualTo(1));

        second.shutdownNow();

        await().atMost(Duration.ofSeconds(2)).untilAsserted(() -> assertThat(plugin.watcherCount()).isZero());
    }

    @Test
    void preferredAllocationStaysOnOneNumaNode() throws Exception {
        DevicePluginGrpc.DevicePluginBlockingStub plugin = start(ExampleNodes.ROCE, AgentConfig.defaults());

        List<String> chosen = plugin.getPreferredAllocation(PreferredAllocationRequest.newBuilder()
                .addContainerRequests(ContainerPreferredAllocationRequest.newBuilder()
                        .addAllAvailableDeviceIDs(List.of("mlx5_1:1", "mlx5_2:1", "mlx5_3:1", "mlx5_4:1"))
                        .addMustIncludeDeviceIDs("mlx5_4:1")
                        .setAllocationSize(2))
                .build()).getContainerResponses(0).getDeviceIDsList();

        assertThat(chosen).containsExactly("mlx5_4:1", "mlx5_3:1");
    }

    @Test
    void sharedModeAdvertisesSlotsAndAllocatesTheirPort() throws Exception {
        AgentConfig shared = new AgentConfig(List.of(new ResourceConfig("rdma/shared", ResourceConfig.Mode.SHARED, 4,
                new PortSelector(List.of("mlx5_1"), null, null, null, null, null), false)));
        DevicePluginGrpc.DevicePluginBlockingStub plugin = start(ExampleNodes.ROCE, shared);

        assertThat(plugin.listAndWatch(Empty.getDefaultInstance()).next().getDevicesList()).extracting(Device::getID)
                .containsExactly("mlx5_1:1#0", "mlx5_1:1#1", "mlx5_1:1#2", "mlx5_1:1#3");
        ContainerAllocateResponse response = plugin.allocate(request("mlx5_1:1#2")).getContainerResponses(0);
        assertThat(response.getEnvsMap()).containsEntry("NCCL_IB_HCA", "=mlx5_1:1");
        assertThat(kubelet.registrations().getFirst().getEndpoint()).isEqualTo("railyard-rdma-shared.sock");
    }

    private List<ListAndWatchResponse> watch() {
        List<ListAndWatchResponse> updates = new CopyOnWriteArrayList<>();
        DevicePluginGrpc.newStub(channel).listAndWatch(Empty.getDefaultInstance(), new Collector(updates));
        return updates;
    }

    private static String health(ListAndWatchResponse response, String id) {
        return response.getDevicesList().stream().filter(d -> d.getID().equals(id)).findFirst().orElseThrow().getHealth();
    }

    private AgentConfig config(String yaml) throws Exception {
        return AgentConfig.load(Files.writeString(dir.resolve("agent.yaml"), yaml));
    }

    @Test
    void theHostsTrafficClassAndTheOtherLibrariesListsComeWithNcclsVariables() throws Exception {
        DevicePluginGrpc.DevicePluginBlockingStub plugin = start(ExampleNodes.ROCE, AgentConfig.defaults(),
                host -> List.of("mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4").forEach(hca -> host.trafficClass(hca, 1, "Global tclass=106")));

        ContainerAllocateResponse response = plugin.allocate(request("mlx5_4:1", "mlx5_3:1")).getContainerResponses(0);

        assertThat(response.getEnvsMap())
                .containsEntry("NCCL_IB_TC", "106").containsEntry("UCX_IB_TRAFFIC_CLASS", "106").containsEntry("NVSHMEM_IB_TRAFFIC_CLASS", "106")
                .containsEntry("UCX_NET_DEVICES", "mlx5_3:1,mlx5_4:1").containsEntry("UCX_IB_GID_INDEX", "3")
                .containsEntry("NVSHMEM_HCA_LIST", "mlx5_3:1,mlx5_4:1").containsEntry("NVSHMEM_ENABLE_NIC_PE_MAPPING", "1")
                .containsEntry("NVSHMEM_IB_GID_INDEX", "3")
                // GPUs 0-3 sit on the other socket: the first allocated port in device order; 4-7 under mlx5_3's and mlx5_4's switches
                .containsEntry("RAILYARD_GPU_NICS", "0=mlx5_3:1,1=mlx5_3:1,2=mlx5_3:1,3=mlx5_3:1,4=mlx5_3:1,5=mlx5_3:1,6=mlx5_4:1,7=mlx5_4:1")
                .doesNotContainKeys("NCCL_IB_SL", "NCCL_IB_PKEY");
    }

    @Test
    void portsThatDisagreeOnTheTrafficClassGetNoneAndEachLibraryCanBeTurnedOff() throws Exception {
        DevicePluginGrpc.DevicePluginBlockingStub plugin = start(ExampleNodes.ROCE,
                config("resources: [{name: rdma/rdma, environment: {ucx: false, nvshmem: false, gpuNics: false}}]\n"),
                host -> {
                    host.trafficClass("mlx5_1", 1, "Global tclass=106");
                    host.trafficClass("mlx5_2", 1, "Global tclass=-1");
                });

        assertThat(plugin.allocate(request("mlx5_1:1", "mlx5_2:1")).getContainerResponses(0).getEnvsMap())
                .containsKeys("NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "RAILYARD_RDMA_DEVICES")
                .doesNotContainKeys("NCCL_IB_TC", "UCX_NET_DEVICES", "UCX_IB_TRAFFIC_CLASS", "NVSHMEM_HCA_LIST", "RAILYARD_GPU_NICS");
        assertThat(plugin.allocate(request("mlx5_1:1")).getContainerResponses(0).getEnvsMap()).containsEntry("NCCL_IB_TC", "106");
    }

    @Test
    void aResourcesPartitionIsFoundOnEveryPortOrTheAllocationIsRefused() throws Exception {
        DevicePluginGrpc.DevicePluginBlockingStub plugin = start(ExampleNodes.INFINIBAND,
                config("resources: [{name: rdma/rdma, pkey: '0x8001', serviceLevel: 3, environment: {trafficClass: false}}]\n"),
                host -> {
                    host.pkeys("mlx5_0", 1, 0xffff, 0x8001);
                    host.pkeys("mlx5_1", 1, 0xffff, 0x8001);
                    host.pkeys("mlx5_2", 1, 0xffff);
                    host.pkeys("mlx5_3", 1, 0xffff, 0x7fff, 0x8001);
                });

        assertThat(plugin.allocate(request("mlx5_1:1", "mlx5_0:1")).getContainerResponses(0).getEnvsMap())
                .containsEntry("NCCL_IB_PKEY", "1").containsEntry("UCX_IB_PKEY", "0x0001").containsEntry("NVSHMEM_IB_PKEY_INDEX", "1")
                .containsEntry("NCCL_IB_SL", "3").containsEntry("UCX_IB_SL", "3").containsEntry("NVSHMEM_IB_SL", "3")
                .doesNotContainKeys("NCCL_IB_GID_INDEX", "UCX_IB_GID_INDEX");
        assertThatThrownBy(() -> plugin.allocate(request("mlx5_0:1", "mlx5_2:1"))).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
            assertThat(e.getStatus().getDescription()).startsWith("mlx5_2 port 1 has no P_Key 0x8001 (its table: 0xffff)");
        });
        assertThatThrownBy(() -> plugin.allocate(request("mlx5_0:1", "mlx5_3:1"))).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getDescription()).startsWith("the ports hold P_Key 0x8001 at different indexes (mlx5_0:1 at 1, mlx5_3:1 at 2)"));
    }

    @Test
    void ncclIsTunedByTheNodesFabricLabelsWithTheReasonAndATuningOffResourceIsLeftAlone() throws Exception {
        Map<String, String> railsOfTwoTiers = Map.of("railyard.io/fabric.shape", "rail-optimized", "railyard.io/fabric.tiers", "2");
        DevicePluginGrpc.DevicePluginBlockingStub plugin = startOn(ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("host")),
                AgentConfig.defaults(), railsOfTwoTiers);

        Map<String, String> two = plugin.allocate(request("mlx5_1:1", "mlx5_2:1")).getContainerResponses(0).getEnvsMap();
        Map<String, String> one = plugin.allocate(request("mlx5_3:1")).getContainerResponses(0).getEnvsMap();

        assertThat(two).containsEntry("NCCL_CROSS_NIC", "0").containsEntry("NCCL_IB_QPS_PER_CONNECTION", "4")
                .containsEntry("NCCL_IB_SPLIT_DATA_ON_QPS", "0").doesNotContainKeys("NCCL_NET_GDR_C2C", "NCCL_IB_ADAPTIVE_ROUTING");
        assertThat(two.get("RAILYARD_NCCL_TUNING")).startsWith("NCCL_CROSS_NIC=0 (rail-optimized fabric: each ring and tree stays on one rail")
                .contains("; NCCL_IB_QPS_PER_CONNECTION=4 (2-tier RoCE fabric: ECMP hashes queue pairs");
        assertThat(one).as("one NIC: CROSS_NIC has no effect").doesNotContainKey("NCCL_CROSS_NIC").containsEntry("NCCL_IB_QPS_PER_CONNECTION", "4");
        agent.nodeLabelsChanged(Map.of("railyard.io/fabric.shape", "fat-tree", "railyard.io/fabric.tiers", "1")); // relabelled while running
        assertThat(plugin.allocate(request("mlx5_1:1", "mlx5_2:1")).getContainerResponses(0).getEnvsMap())
                .containsEntry("NCCL_CROSS_NIC", "1").doesNotContainKey("NCCL_IB_QPS_PER_CONNECTION");
        stop();

        plugin = startOn(ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("host2")), config("resources: [{name: rdma/rdma,"
                + " environment: {tuning: false}, adaptiveRouting: true}]\n"), railsOfTwoTiers);
        assertThat(plugin.allocate(request("mlx5_1:1", "mlx5_2:1")).getContainerResponses(0).getEnvsMap())
                .doesNotContainKeys("NCCL_CROSS_NIC", "NCCL_IB_QPS_PER_CONNECTION", "NCCL_IB_ADAPTIVE_ROUTING", "RAILYARD_NCCL_TUNING");
    }

    @Test
    void aGraceHostGetsGpuDirectOverC2cAndAnInfiniBandFabricWithoutAdaptiveRoutingSaysSo() throws Exception {
        DevicePluginGrpc.DevicePluginBlockingStub plugin = startOn(io.railyard.testkit.GraceHopper.write(HostTree.at(dir.resolve("gh200")), 2),
                AgentConfig.defaults(), Map.of());

        Map<String, String> grace = plugin.allocate(request("mlx5_0:1")).getContainerResponses(0).getEnvsMap();
        stop();
        plugin = startOn(ExampleNodes.write(ExampleNodes.INFINIBAND, dir.resolve("ib")), config("resources: [{name: rdma/rdma,"
                + " adaptiveRouting: false}]\n"), Map.of("railyard.io/fabric.shape", "fat-tree", "railyard.io/fabric.tiers", "2"));
        Map<String, String> ib = plugin.allocate(request("mlx5_0:1", "mlx5_1:1")).getContainerResponses(0).getEnvsMap();

        assertThat(grace).containsEntry("NCCL_NET_GDR_C2C", "1");
        assertThat(grace.get("RAILYARD_NCCL_TUNING")).startsWith("NCCL_NET_GDR_C2C=1 (Grace host");
        assertThat(ib).containsEntry("NCCL_CROSS_NIC", "1").containsEntry("NCCL_IB_ADAPTIVE_ROUTING", "0")
                .doesNotContainKeys("NCCL_IB_QPS_PER_CONNECTION", "NCCL_NET_GDR_C2C");
    }

    @Test
    void aResourcesPartitionIsHonouredOnRocePortsToo() throws Exception {
        DevicePluginGrpc.DevicePluginBlockingStub plugin = start(ExampleNodes.ROCE,
                config("resources: [{name: rdma/rdma, pkey: '0x8001', environment: {trafficClass: false}}]\n"),
                host -> {
                    host.pkeys("mlx5_1", 1, 0xffff, 0x8001);
                    host.pkeys("mlx5_2", 1, 0xffff, 0x8001);
                    host.pkeys("mlx5_3", 1, 0xffff);
                });

        assertThat(plugin.allocate(request("mlx5_1:1", "mlx5_2:1")).getContainerResponses(0).getEnvsMap())
                .containsEntry("NCCL_IB_PKEY", "1").containsKeys("NCCL_IB_GID_INDEX");
        assertThatThrownBy(() -> plugin.allocate(request("mlx5_1:1", "mlx5_3:1"))).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getDescription()).startsWith("mlx5_3 port 1 has no P_Key 0x8001 (its table: 0xffff)"));
    }

    @Test
    void aResourcesTopologyFileIsMountedIntoItsContainersAsNcclTopoFile() throws Exception {
        Path file = Files.writeString(dir.resolve("ndv5-topo.xml"), "<system version=\"1\">\n  <cpu numaid=\"0\"/>\n</system>\n");
        DevicePluginGrpc.DevicePluginBlockingStub plugin = start(ExampleNodes.ROCE,
                config("resources: [{name: rdma/rdma, topology: {file: '" + file + "'}}]\n"));

        ContainerAllocateResponse response = plugin.allocate(request("mlx5_1:1")).getContainerResponses(0);

        assertThat(response.getEnvsMap()).containsEntry("NCCL_TOPO_FILE", "/etc/railyard/nccl-topo.xml");
        assertThat(response.getMountsList()).singleElement().satisfies(mount -> {
            assertThat(mount.getContainerPath()).isEqualTo("/etc/railyard/nccl-topo.xml");
            assertThat(mount.getReadOnly()).isTrue();
            assertThat(Path.of(mount.getHostPath())).as("a copy the kubelet can see, beside the plugin sockets")
                    .startsWith(dir.resolve("device-plugins")).hasSameTextualContentAs(file);
        });
    }

    private static AllocateRequest request(String... ids) {
        return AllocateRequest.newBuilder().addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(List.of(ids))).build();
    }

    private record Collector(List<ListAndWatchResponse> updates) implements StreamObserver<ListAndWatchResponse> {
        @Override
        public void onNext(ListAndWatchResponse value) {
            updates.add(value);
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {}
    }

}
