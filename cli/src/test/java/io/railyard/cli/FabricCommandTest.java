package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.railyard.cli.fabric.FabricApply;
import io.railyard.fabric.SchedulerObjects;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** railyard fabric on the real infiniband-diags outputs of testdata/ibsim, and --apply against the fabric8 CRUD mock API server. */
@EnableKubernetesMockClient(crud = true)
class FabricCommandTest {
    private static final Path IBSIM = Path.of(System.getProperty("railyard.repo", "..")).resolve("testdata/ibsim");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    static KubernetesClient client;

    @TempDir
    Path dir;

    private static String file(String fabric, String tool) {
        return IBSIM.resolve(fabric).resolve(tool + ".txt").toString();
    }

    private static CommandRun fabric(String fabric, String... more) {
        List<String> args = new ArrayList<>(List.of("fabric", "--ibnetdiscover", file(fabric, "ibnetdiscover"), "--iblinkinfo",
                file(fabric, "iblinkinfo"), "--ibqueryerrors", file(fabric, "ibqueryerrors")));
        args.addAll(List.of(more));
        return CommandRun.of(args.toArray(String[]::new));
    }

    @Test
    void thePicturesExitAsTheReportDoesAndAreNotForObjects() throws Exception {
        CommandRun svg = fabric("fattree-faults", "-o", "svg");
        assertThat(svg.exitCode()).isEqualTo(1);
        assertThat(svg.out()).startsWith("<svg xmlns=\"http://www.w3.org/2000/svg\"").endsWith("</svg>\n").doesNotContain("<script");
        assertThat(fabric("fattree", "-o", "html").exitCode()).isZero();

        CommandRun objects = fabric("fattree", "--labels", "-o", "html");
        assertThat(objects.exitCode()).isEqualTo(2);
        assertThat(objects.out()).isEmpty();
        assertThat(objects.err()).hasLineCount(1).contains("-o html draws the fabric", "use -o yaml or -o json");
    }

    @Test
    void faultyFabricExitsOneWithEveryFindingInJson() throws Exception {
        CommandRun run = fabric("fattree-faults", "-o", "json");

        assertThat(run.exitCode()).isEqualTo(1);
        JsonNode json = new ObjectMapper().readTree(run.out());
        assertThat(json.path("findings")).extracting(f -> f.path("id").asText()).containsExactly("degraded-link", "degraded-link",
                "missing-hca", "port-down", "port-down", "port-down", "port-errors", "port-errors", "port-errors", "uplink-asymmetry");
        assertThat(json.path("switches").get(0).path("guid").asText()).isEqualTo("0xb8cef60300a1b202");
        assertThat(json.path("switches").get(0).path("role").asText()).isEqualTo("leaf");
        JsonNode seven = json.path("hosts").get(6);
        assertThat(seven.path("host").asText()).isEqualTo("gpu-node-07");
        assertThat(seven.path("hcas")).hasSize(1);
        assertThat(seven.path("hcas").get(0).path("leaf").asText()).isEqualTo("leaf-03");
        assertThat(json.path("groups").get(1).path("leaves")).extracting(JsonNode::asText).containsExactly("leaf-03", "leaf-04");
    }

    @Test
    void healthyFabricExitsZeroAndTextShowsTiersAndGroups() {
        CommandRun run = fabric("fattree");

        assertThat(run.exitCode()).isEqualTo(0);
        assertThat(run.out()).contains("6 switches (4 leaf, 2 spine), 16 HCAs on 8 hosts, 32 links")
                .contains("spine spine-01 spine-02")
                .contains("rails-leaf-01 (rails on leaf-01, leaf-02) under spines-spine-01: gpu-node-01 gpu-node-02 gpu-node-03 gpu-node-04")
                .contains("OK: no findings");
    }

    @Test
    void yamlReportReadsBackAsTheJsonOne() throws Exception {
        JsonNode yaml = YAML.readTree(fabric("fattree", "-o", "yaml").out());
        JsonNode json = new ObjectMapper().readTree(fabric("fattree", "-o", "json").out());

        assertThat(yaml).isEqualTo(json);
    }

    @Test
    void hyperNodesAndKueueTopologyPassTheProjectsCrdSchemas() throws Exception {
        CommandRun run = fabric("fattree", "--hyper-nodes", "--kueue-topology");

        assertThat(run.exitCode()).isEqualTo(0);
        List<JsonNode> objects = YAML.readValues(YAML.createParser(run.out()), JsonNode.class).readAll();
        assertThat(objects).extracting(o -> o.path("kind").asText()).containsExactly("HyperNode", "HyperNode", "HyperNode", "Topology");
        Schema hyperNode = crdSchema("topology.volcano.sh_hypernodes.yaml");
        Schema topology = crdSchema("kueue.x-k8s.io_topologies.yaml");
        for (JsonNode object : objects) {
            assertThat((object.path("kind").asText().equals("HyperNode") ? hyperNode : topology).validate(object)).isEmpty();
        }
        // The CEL rules the schemas carry: one selector per member; the host name only as the lowest level.
        objects.stream().filter(o -> o.path("kind").asText().equals("HyperNode")).flatMap(o -> iterable(o.path("spec").path("members")).stream())
                .forEach(member -> assertThat(member.path("selector").size()).isEqualTo(1));
        List<JsonNode> levels = iterable(objects.get(3).path("spec").path("levels"));
        assertThat(levels.getLast().path("nodeLabel").asText()).isEqualTo("kubernetes.io/hostname");
        assertThat(levels.stream().map(JsonNode::toString).distinct()).hasSameSizeAs(levels);
        assertThat(hyperNode.validate(YAML.readTree("{apiVersion: topology.volcano.sh/v1alpha1, kind: HyperNode, spec: {tier: -1}}"))).isNotEmpty();
    }

    @Test
    void applyLabelsNodesCreatesSchedulerObjectsAndChangesNothingTheSecondTime() throws Exception {
        for (int n = 1; n <= 8; n++) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-node-0" + n).addToLabels("keep", "me").endMetadata().build())
                    .create();
        }
        Path kubeconfig = MockKubeconfig.write(dir, client);

        CommandRun first = fabric("fattree", "--labels", "--hyper-nodes", "--kueue-topology", "--apply", "--kubeconfig", kubeconfig.toString());

        assertThat(first.exitCode()).as(first.err()).isEqualTo(0);
        assertThat(first.out()).contains("node/gpu-node-05 labelled railyard.io/ib-leaf=rails-leaf-03 railyard.io/ib-spine-group=spines-spine-01"
                        + " railyard.io/fabric.shape=rail-optimized railyard.io/fabric.tiers=2")
                .contains("hypernode/rails-leaf-01 created").contains("hypernode/spines-spine-01 created").contains("topology/railyard-infiniband created");
        assertThat(client.nodes().withName("gpu-node-05").get().getMetadata().getLabels()).containsEntry("keep", "me")
                .containsEntry("railyard.io/ib-leaf", "rails-leaf-03");
        GenericKubernetesResource spine = client.genericKubernetesResources(FabricApply.HYPER_NODES).withName("spines-spine-01").get();
        assertThat(((Map<?, ?>) spine.getAdditionalProperties().get("spec")).get("tier")).isEqualTo(2);
        assertThat(client.genericKubernetesResources(FabricApply.KUEUE_TOPOLOGIES).withName("railyard-infiniband").get()).isNotNull();

        CommandRun second = fabric("fattree", "--labels", "--hyper-nodes", "--kueue-topology", "--apply", "--kubeconfig", kubeconfig.toString());

        assertThat(second.exitCode()).isEqualTo(0);
        assertThat(second.out()).doesNotContain("labelled").doesNotContain("created").doesNotContain("updated");
    }

    @Test
    void applyRemovesHyperNodesItMadeThatTheFabricNoLongerHasAndNamesHostsWithoutANode() throws Exception {
        client.genericKubernetesResources(FabricApply.HYPER_NODES).resource(YAML.convertValue(Map.of("apiVersion", "topology.volcano.sh/v1alpha1",
                "kind", "HyperNode", "metadata", Map.of("name", "leaf-gone", "labels", Map.of("app.kubernetes.io/managed-by", "railyard")),
                "spec", Map.of("tier", 1)), GenericKubernetesResource.class)).create();
        Path map = Files.writeString(dir.resolve("names"), "# fabric host  node\ngpu-node-01 node-a.example.com\n");
        Path kubeconfig = MockKubeconfig.write(dir, client);

        CommandRun run = CommandRun.of("fabric", "--ibnetdiscover", file("single-switch", "ibnetdiscover"), "--node-name-map", map.toString(),
                "--labels", "--hyper-nodes", "--apply", "--kubeconfig", kubeconfig.toString());

        assertThat(run.exitCode()).as(run.err()).isEqualTo(0);
        assertThat(run.out()).contains("node/node-a.example.com not found").contains("hypernode/leaf-gone deleted: no longer in the fabric")
                .contains("hypernode/sw-98039b0300f0a000 created");
        assertThat(client.genericKubernetesResources(FabricApply.HYPER_NODES).withName("leaf-gone").get()).isNull();
    }

    @Test
    void applyToAClusterThatCannotBeReachedPrintsNothingAndOneLine() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        Path kubeconfig = Files.writeString(dir.resolve("unreachable"), Files.readString(MockKubeconfig.write(dir, client))
                .replace(client.getMasterUrl().toString().replaceAll("/$", ""), "https://127.0.0.1:" + closed));

        CommandRun run = fabric("fattree", "--labels", "--apply", "--kubeconfig", kubeconfig.toString());

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).startsWith("fabric: cannot use the Kubernetes API at https://127.0.0.1:" + closed).contains("connection refused")
                .hasLineCount(1);
    }

    @Test
    void badInputIsOneLineAndExitTwo() throws Exception {
        Path badMap = Files.writeString(dir.resolve("names"), "gpu-node-01\n");
        String[][] cases = {
            {"fabric", "--ibnetdiscover", file("fattree", "ibnetdiscover"), "--apply"},
            {"fabric", "--ibnetdiscover", dir.resolve("missing.txt").toString()},
            {"fabric", "--ibnetdiscover", file("fattree", "iblinkinfo")},
            {"fabric", "--ibnetdiscover", file("fattree", "ibnetdiscover"), "--iblinkinfo", file("fattree", "ibnetdiscover")},
            {"fabric", "--ibqueryerrors", file("fattree", "ibqueryerrors")},
            {"fabric", "--ibnetdiscover", file("fattree", "ibnetdiscover"), "--hcas-per-host", "0"},
            {"fabric", "--ibnetdiscover", file("fattree", "ibnetdiscover"), "--node-name-map", badMap.toString()},
            {"fabric", "--ibnetdiscover", "-", "--iblinkinfo", "-"},
        };
        for (String[] args : cases) {
            CommandRun run = CommandRun.of(args);
            assertThat(run.exitCode()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(run.err().lines()).as(String.join(" ", args)).singleElement().asString().startsWith("fabric: ").doesNotContain("Exception");
        }
    }

    @Test
    void theReportSaysTheFabricsShapeAndAShapeFileLabelsARoceFabricsNodes() throws Exception {
        CommandRun text = fabric("fattree");
        JsonNode json = new ObjectMapper().readTree(fabric("fattree", "-o", "json").out());
        Path example = Path.of(System.getProperty("railyard.repo", "..")).resolve("examples/fabric/roce-shape.yaml");
        CommandRun labels = CommandRun.of("fabric", "--shape-file", example.toString(), "--labels", "-o", "json");

        assertThat(text.out()).contains("  shape rail-optimized, 2 tiers: all 8 hosts with several HCAs have each HCA on a leaf of its own\n");
        assertThat(json.path("shape").path("name").asText()).isEqualTo("rail-optimized");
        assertThat(json.path("shape").path("tiers").asInt()).isEqualTo(2);
        assertThat(labels.exitCode()).as(labels.err()).isZero();
        JsonNode items = new ObjectMapper().readTree(labels.out()).path("items");
        assertThat(items).hasSize(4);
        assertThat(items.get(0).path("metadata").path("name").asText()).isEqualTo("gpu-node-01");
        assertThat(items.get(0).path("metadata").path("labels").toString())
                .isEqualTo("{\"railyard.io/fabric.shape\":\"rail-optimized\",\"railyard.io/fabric.tiers\":\"2\"}");
        Path wrong = Files.writeString(dir.resolve("wrong.yaml"), "shape: torus\ntiers: 2\nnodes: [a]\n");
        for (String[] args : List.of(new String[] {"fabric", "--shape-file", wrong.toString(), "--labels"},
                new String[] {"fabric", "--shape-file", example.toString()},
                new String[] {"fabric", "--shape-file", dir.resolve("none.yaml").toString(), "--labels"})) {
            CommandRun run = CommandRun.of(args);
            assertThat(run.exitCode()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(run.err().lines()).as(String.join(" ", args)).singleElement().asString().startsWith("fabric: --shape-file")
                    .doesNotContain("Exception");
        }
    }

    @Test
    void theTopologyExampleOrdersRanksByTheLabelsFabricWrites() throws Exception {
        JsonNode job = YAML.readTree(Path.of(System.getProperty("railyard.repo", "..")).resolve("examples/trainingjobs/topology.yaml").toFile());

        assertThat(job.path("spec").path("scheduling").path("topologyKeys")).extracting(JsonNode::asText)
                .containsExactly(SchedulerObjects.SPINE_GROUP_LABEL, SchedulerObjects.LEAF_LABEL);
    }

    private static Schema crdSchema(String file) throws Exception {
        try (InputStream in = FabricCommandTest.class.getResourceAsStream("/crds/" + file)) {
            JsonNode crd = YAML.readTree(in);
            return SchemaRegistry.withDialect(Dialects.getOpenApi30())
                    .getSchema(crd.path("spec").path("versions").get(0).path("schema").path("openAPIV3Schema"));
        }
    }

    private static List<JsonNode> iterable(JsonNode array) {
        List<JsonNode> list = new ArrayList<>();
        array.forEach(list::add);
        return list;
    }
}
