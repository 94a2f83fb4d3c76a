package io.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.railyard.api.TrainingJob;
import io.railyard.testkit.ExampleNodes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * DRA for real: the agent's ResourceSlices, the chart's DeviceClass, and a TrainingJob whose NICs come with their GPUs
 * through claims that kube-scheduler's DRA plugin allocates, each NIC on the PCIe root of its GPU as the slices say.
 * The GPUs' slices are published here as NVIDIA's GPU driver publishes them (driver gpu.nvidia.com, the same
 * standard attribute resource.kubernetes.io/pcieRoot), two GPUs on each root of the example node's NICs.
 */
@ExtendWith(RealCluster.class)
@Order(5)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DraIT {
    private static final String PCIE_ROOT = "resource.kubernetes.io/pcieRoot";
    private static final List<String> NODES = List.of("dra-1", "dra-2");

    private Installation railyard;
    private KubernetesClient client;
    private String namespace;
    private final List<RailyardProcess> agents = new ArrayList<>();

    @BeforeAll
    void nodesWithTheirDrivers(Installation railyard) throws IOException {
        this.railyard = railyard;
        this.client = railyard.cluster.admin;
        this.namespace = railyard.jobNamespace("dra");
        railyard.cluster.kubectl("""
                apiVersion: resource.k8s.io/v1
                kind: DeviceClass
                metadata: {name: gpu.nvidia.com}
                spec:
                  selectors: [{cel: {expression: 'device.driver == "gpu.nvidia.com"'}}]
                """, "apply", "--server-side", "-f", "-");
        for (String node : NODES) {
            KwokNodes.rdma(client, node, "dra");
            Path dir = Files.createDirectories(ControlPlane.REPO.resolve("e2e/target/nodes/" + node));
            ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("root"));
            agents.add(railyard.agent(node, dir.resolve("root"), "--dra",
                    "--kubelet-plugins-dir", Files.createDirectories(dir.resolve("plugins")).toString(),
                    "--plugins-registry-dir", Files.createDirectories(dir.resolve("plugins_registry")).toString(),
                    "--cdi-dir", Files.createDirectories(dir.resolve("cdi")).toString()));
        }
        for (String node : NODES) {
            ResourceSlice nics = Awaitility.await("the agent's ResourceSlice of " + node).atMost(Duration.ofSeconds(60)).until(
                    () -> slices().stream().filter(s -> s.getSpec().getNodeName().equals(node) && s.getSpec().getDriver().equals("rdma.railyard.io"))
                            .findFirst(), java.util.Optional::isPresent).orElseThrow();
            client.resource(gpuSlice(node, nics)).create();
        }
    }

    @AfterAll
    void stopAgents() {
        agents.forEach(RailyardProcess::close);
    }

    @Test
    void theSchedulersDraPluginAllocatesEachNicOnThePcieRootOfItsGpuAndBindsThePods() {
        String job = Jobs.yaml(namespace, "aligned", 2, "dra").replace("    devicesPerNode: 4\n",
                "    devicesPerNode: 4\n    allocation: dra\n    alignWithGpus: true\n");
        railyard.submit(job);

        List<Pod> running = Jobs.awaitRunning(client, namespace, "aligned", 2, Duration.ofSeconds(90));
        assertThat(running).extracting(p -> p.getSpec().getNodeName()).containsExactlyInAnyOrderElementsOf(NODES);

        Map<String, String> roots = roots(slices());
        List<ResourceClaim> claims = client.resources(ResourceClaim.class).inNamespace(namespace).list().getItems();
        assertThat(claims).hasSize(2).allSatisfy(claim -> {
            assertThat(claim.getStatus().getAllocation()).as("claim " + claim.getMetadata().getName() + " allocated").isNotNull();
            Map<String, String> rootOf = new HashMap<>();
            for (DeviceRequestAllocationResult result : claim.getStatus().getAllocation().getDevices().getResults()) {
                rootOf.put(result.getRequest(), roots.get(result.getPool() + "/" + result.getDevice()));
            }
            for (int pair = 0; pair < 4; pair++) {
                assertThat(rootOf.get("nic" + pair)).as("NIC %d's PCIe root is its GPU's", pair).isNotNull().isEqualTo(rootOf.get("gpu" + pair));
            }
            assertThat(claim.getStatus().getAllocation().getDevices().getResults()).hasSize(12); // 4 pairs and 4 more GPUs
        });

        client.resources(TrainingJob.class).inNamespace(namespace).withName("aligned").delete();
        Awaitility.await("the job's claim template and claims gone with it").atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(client.resources(ResourceClaimTemplate.class).inNamespace(namespace).list().getItems()).isEmpty();
            assertThat(client.resources(ResourceClaim.class).inNamespace(namespace).list().getItems()).isEmpty();
        });
    }

    private List<ResourceSlice> slices() {
        return client.resources(ResourceSlice.class).list().getItems();
    }

    /** Each device's PCIe root, by "pool/device". */
    private static Map<String, String> roots(List<ResourceSlice> slices) {
        Map<String, String> roots = new HashMap<>();
        for (ResourceSlice slice : slices) {
            slice.getSpec().getDevices().forEach(device -> {
                DeviceAttribute root = device.getAttributes() == null ? null : device.getAttributes().get(PCIE_ROOT);
                if (root != null) {
                    roots.put(slice.getSpec().getPool().getName() + "/" + device.getName(), root.getString());
                }
            });
        }
        return roots;
    }

    /** Eight GPUs, two on each PCIe root of the node's NICs, as NVIDIA's GPU DRA driver would publish them. */
    private static ResourceSlice gpuSlice(String node, ResourceSlice nics) {
        List<String> nicRoots = nics.getSpec().getDevices().stream().map(d -> d.getAttributes().get(PCIE_ROOT).getString()).distinct().toList();
        StringBuilder devices = new StringBuilder();
        for (int gpu = 0; gpu < 8; gpu++) {
            devices.append("""
                    - name: gpu-%d
                      attributes:
                        type: {string: gpu}
                        resource.kubernetes.io/pcieRoot: {string: "%s"}
                    """.formatted(gpu, nicRoots.get(gpu / 2 % nicRoots.size())));
        }
        return Serialization.unmarshal("""
                apiVersion: resource.k8s.io/v1
                kind: ResourceSlice
                metadata: {name: %s-gpu.nvidia.com}
                spec:
                  driver: gpu.nvidia.com
                  nodeName: %s
                  pool: {name: %s, generation: 1, resourceSliceCount: 1}
                  devices:
                %s""".formatted(node, node, node, devices.toString().indent(2)), ResourceSlice.class);
    }
}
