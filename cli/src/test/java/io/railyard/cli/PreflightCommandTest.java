package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.railyard.api.Names;
import io.railyard.operator.preflight.PodPairSweep;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * railyard preflight against the fabric8 CRUD mock API server (no real API server can be had here), with
 * {@link PreflightCluster} playing scheduler and kubelets and giving the helper's logs, which the mock does not serve.
 */
@EnableKubernetesMockClient(crud = true)
class PreflightCommandTest {
    static KubernetesClient client;
    PreflightCluster cluster;

    @TempDir
    Path dir;

    @BeforeEach
    void start() {
        client.nodes().delete();
        client.pods().inNamespace("ns").delete();
        cluster = new PreflightCluster(client, "ns");
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    private CommandRun preflight(String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("preflight", "--kubeconfig=" + MockKubeconfig.write(dir, client), "-n", "ns", "--poll-ms=20"));
        args.addAll(List.of(more));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine.IFactory factory = new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> type) throws Exception {
                return type == PreflightCommand.class ? type.cast(new PreflightCommand(cluster.logs())) : CommandLine.defaultFactory().create(type);
            }
        };
        int code = Railyard.run(new PrintWriter(out, true), new PrintWriter(err, true), factory, args.toArray(String[]::new));
        return new CommandRun(code, out.toString(), err.toString());
    }

    private static JsonNode json(CommandRun run) throws Exception {
        return new ObjectMapper().readTree(run.out());
    }

    private static Map<String, String> labels(String node) {
        Node found = client.nodes().withName(node).get();
        return found.getMetadata().getLabels();
    }

    @Test
    void aHealthyRingOfSixteenPassesInTwoRoundsAndLeavesNothingBehind() throws Exception {
        PreflightCluster.nodes(client, 16, 2, "gpu");

        CommandRun run = preflight("--selector", "gpu=true", "-o", "json");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(0);
        JsonNode json = json(run);
        assertThat(json.path("status").asText()).isEqualTo("pass");
        assertThat(json.path("pairs")).hasSize(32).allSatisfy(pair -> {
            assertThat(pair.path("gbps").asDouble()).isEqualTo(197.7);
            assertThat(pair.path("percent").asDouble()).isEqualTo(98.8);
            assertThat(pair.path("verdict").asText()).isEqualTo("ok");
        });
        assertThat(json.path("pairs").get(0).path("serverHca").asText()).isEqualTo("mlx5_0");
        assertThat(json.path("nodes")).hasSize(16).allSatisfy(node -> assertThat(node.path("verdict").asText()).isEqualTo("ok"));
        assertThat(run.err()).as("no progress with -o json").isEmpty();
        assertThat(client.pods().inNamespace("ns").list().getItems()).as("every round's pods deleted").isEmpty();
        assertThat(client.network().networkPolicies().inNamespace("ns").list().getItems()).as("the run's NetworkPolicy deleted").isEmpty();
        assertThat(labels("node-03")).as("nodes are labelled only when asked").doesNotContainKey(Names.PREFLIGHT_LABEL);
    }

    @Test
    void theHtmlPageIsTheHeatmapWithTheJsonReportInIt() throws Exception {
        PreflightCluster.nodes(client, 6, 1, "gpu");
        cluster.slowNodes.add("node-04");

        CommandRun run = preflight("--selector", "gpu=true", "-o", "html");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
        assertThat(run.err()).as("no progress with -o html").isEmpty();
        String page = run.out();
        assertThat(page).startsWith("<!DOCTYPE html>").contains("Suspect nodes: ", ">node-04</strong>");
        String embedded = page.substring(page.indexOf("id=\"railyard-preflight\">") + "id=\"railyard-preflight\">".length(),
                page.indexOf("</script>"));
        JsonNode report = new ObjectMapper().readTree(embedded);
        assertThat(report.path("status").asText()).isEqualTo("fail");
        assertThat(report.path("pairs")).hasSize(6);
        assertThat(page.split("class=\"cell\"", -1)).hasSize(6 + 1);
    }

    @Test
    void aSlowNodeIsTheSuspectAndIsLabelledAndTaintedWhenAsked() throws Exception {
        PreflightCluster.nodes(client, 16, 1, "gpu");
        cluster.slowNodes.add("node-07");

        CommandRun run = preflight("--selector", "gpu=true", "--label", "--taint");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
        assertThat(run.out()).contains("node-06  mlx5_0  node-07  mlx5_0  42.3   200   21.2  slow", "node-07  suspect  all 2 of its links (to node-06, node-08)")
                .endsWith("FAIL: node-07 suspect: all 2 of its links (to node-06, node-08) are slow or failed\n");
        assertThat(run.err()).contains("round 1 of 2: 8 server pods created", "round 2 of 2: 7 of 8 links ok",
                "tainted node node-07 railyard.io/preflight-failed:NoSchedule (suspect)");
        assertThat(labels("node-07")).containsEntry(Names.PREFLIGHT_LABEL, "failed");
        assertThat(labels("node-06")).containsEntry(Names.PREFLIGHT_LABEL, "passed");
        assertThat(client.nodes().withName("node-07").get().getMetadata().getAnnotations().get(Names.PREFLIGHT_RESULT_ANNOTATION))
                .endsWith("worst 21.2% of line rate (node-06 mlx5_0 -> node-07)");
        assertThat(client.nodes().withName("node-07").get().getSpec().getTaints()).singleElement()
                .satisfies(taint -> assertThat(taint.getKey() + ":" + taint.getEffect()).isEqualTo("railyard.io/preflight-failed:NoSchedule"));
        io.fabric8.kubernetes.api.model.NodeSpec healthy = client.nodes().withName("node-06").get().getSpec();
        assertThat(healthy == null ? List.of() : healthy.getTaints()).as("only failed nodes are tainted").isNullOrEmpty();
    }

    /**
     * examples/preflight/sweep-16.json is this sweep's -o json: 16 nodes of 2 HCAs, node-07 slow, node-11's link to node-12
     * broken (the helper's logs are real perftest output). RAILYARD_WRITE_EXAMPLES=1 writes it again.
     */
    @Test
    void theShippedSweepIsWhatSuchAClusterMeasuresAndIsShownAgainFromItsFile() throws Exception {
        PreflightCluster.nodes(client, 16, 2, "gpu");
        cluster.slowNodes.add("node-07");
        cluster.brokenLinks.add(List.of("node-11", "node-12"));
        Path example = Path.of(System.getProperty("railyard.repo", "..")).resolve("examples/preflight/sweep-16.json");

        CommandRun run = preflight("--selector", "gpu=true", "-o", "json");
        if (System.getenv("RAILYARD_WRITE_EXAMPLES") != null) {
            java.nio.file.Files.createDirectories(example.getParent());
            java.nio.file.Files.writeString(example, run.out());
        }

        assertThat(json(run)).isEqualTo(new ObjectMapper().readTree(example.toFile()));
        CommandRun text = CommandRun.of("preflight", "--from", example.toString());
        assertThat(text.exitCode()).isEqualTo(1);
        assertThat(text.out()).contains("node-07  suspect").endsWith("FAIL: " + json(run).path("summary").asText() + "\n");
        CommandRun again = CommandRun.of("preflight", "--from", example.toString(), "-o", "json");
        assertThat(json(again)).isEqualTo(json(run));
        CommandRun html = CommandRun.of("preflight", "--from", example.toString(), "-o", "html");
        assertThat(html.out().split("class=\"cell\"", -1)).hasSize(json(run).path("pairs").size() + 1);
    }

    @Test
    void aSavedSweepThatIsNotOneIsOneLineAndExitTwo() throws Exception {
        Path notJson = java.nio.file.Files.writeString(dir.resolve("sweep.json"), "PASS: 32 links");
        Path other = java.nio.file.Files.writeString(dir.resolve("other.json"), "{\"kind\": \"List\"}");

        assertThat(CommandRun.of("preflight", "--from", notJson.toString())).satisfies(run -> {
            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.err()).startsWith("preflight: --from " + notJson + ": not JSON").hasLineCount(1);
        });
        assertThat(CommandRun.of("preflight", "--from", other.toString()).err()).contains("is not a railyard preflight -o json report");
        assertThat(CommandRun.of("preflight", "--from", dir.resolve("none.json").toString()).err()).contains("no such file");
        assertThat(CommandRun.of("preflight", "--from", other.toString(), "--node", "a").err()).contains("--from shows a saved sweep");
    }

    @Test
    void allPairsOfSixFindABrokenLinkBetweenHealthyNodes() throws Exception {
        PreflightCluster.nodes(client, 6, 1, "gpu");
        cluster.brokenLinks.add(List.of("node-00", "node-05"));

        CommandRun run = preflight("--node", "node-00", "node-01", "node-02", "node-03", "node-04", "node-05", "--pairs", "all", "-o", "json");

        assertThat(run.exitCode()).isEqualTo(1);
        JsonNode json = json(run);
        assertThat(json.path("pairs")).hasSize(15);
        assertThat(json.path("pairs").get(0).path("reason").asText()).isEqualTo("ib_write_bw: Couldn't connect to 192.168.125.211:18515");
        assertThat(json.path("pairs").get(0).path("client").asText() + ">" + json.path("pairs").get(0).path("server").asText())
                .isEqualTo("node-00>node-05");
        assertThat(json.path("nodes")).allSatisfy(node -> assertThat(node.path("verdict").asText()).isEqualTo("ok"));
        assertThat(json.path("summary").asText()).startsWith("link node-00 mlx5_0 -> node-05 failed");
    }

    @Test
    void nodesThatCannotRunTheTestHaveFailed() throws Exception {
        PreflightCluster.nodes(client, 6, 1, "gpu");
        cluster.unschedulable.add("node-02");
        cluster.withoutDevice.add("node-04");
        cluster.imagePullFails.add("node-05");

        CommandRun run = preflight("--selector", "gpu=true", "--timeout=10", "-o", "json");

        assertThat(run.exitCode()).isEqualTo(1);
        Map<String, String> verdicts = new java.util.TreeMap<>();
        json(run).path("nodes").forEach(node -> verdicts.put(node.path("node").asText(), node.path("verdict").asText() + ": " + node.path("reason").asText()));
        assertThat(verdicts.get("node-02")).startsWith("failed: ").contains("unschedulable: 0/16 nodes are available: 1 Insufficient rdma/rdma.");
        assertThat(verdicts.get("node-04")).isEqualTo("failed: server pod on node-04 exited before its client started: "
                + "no RDMA device is allocated to this container");
        assertThat(verdicts.get("node-05")).startsWith("failed: ").endsWith(" pod on node-05 ImagePullBackOff: Back-off pulling image \"registry.local/railyard:0.1.0\"");
        assertThat(verdicts.get("node-00")).startsWith("ok");
    }

    @Test
    void badSelectionsAreOneLineAndExitTwo() throws Exception {
        PreflightCluster.nodes(client, 3, 1, "gpu");

        assertThat(preflight("--selector", "gpu=false")).satisfies(run -> {
            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.err()).isEqualTo("preflight: no node matches --selector gpu=false\n");
        });
        assertThat(preflight("--node", "node-01")).satisfies(run -> {
            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.err()).isEqualTo("preflight: 1 of the 1 nodes selected offer rdma/rdma: a sweep needs two; "
                    + "check --resource (the device plugin's resource name) and the selection\n");
        });
        assertThat(preflight("--selector", "gpu=true", "--resource", "rdma/hca")).satisfies(run -> {
            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.err()).startsWith("preflight: 0 of the 3 nodes selected offer rdma/hca");
        });
        assertThat(preflight("--node", "node-09", "node-01").err()).isEqualTo("preflight: node node-09 does not exist (kubectl get nodes lists them)\n");
        assertThat(preflight("--node", "node-01", "--selector", "gpu=true").exitCode()).isEqualTo(2);
        assertThat(preflight("--selector", "gpu=true", "--pairs", "star").err()).isEqualTo("preflight: --pairs star is not ring or all\n");
        assertThat(preflight("--selector", "gpu=true", "--create-rate", "0").err())
                .isEqualTo("preflight: --create-rate 0.0 must be above 0 pods per second\n");
        assertThat(client.pods().inNamespace("ns").list().getItems()).isEmpty();
    }

    @Test
    void allPairsOfALargeSelectionAreRefusedWithTheirCountAndARing() throws Exception {
        PreflightCluster.nodes(client, 65, 1, "gpu");

        CommandRun run = preflight("--selector", "gpu=true", "--pairs", "all");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("preflight: --pairs all over 65 nodes is 2080 pairs in 64 rounds: sweep them in a ring"
                + " (--pairs ring, two rounds), then --pairs all over the nodes it names, at most 64 at a time\n");
        assertThat(client.pods().inNamespace("ns").list().getItems()).isEmpty();
    }

    @Test
    void podsArePacedAtTheCreateRate() {
        assertThat(PodPairSweep.startOf(0, 50)).isZero();
        assertThat(PodPairSweep.startOf(50, 50)).isEqualTo(1_000_000_000L);
        assertThat(PodPairSweep.startOf(3, 2)).isEqualTo(1_500_000_000L);
    }

    @Test
    void thePodsSayWhatTheyTestAndKeepStaysForKubectl() throws Exception {
        PreflightCluster.nodes(client, 2, 1, "gpu");

        CommandRun run = preflight("--selector", "gpu=true", "--keep", "--image", "registry.local/railyard:test", "--host-network");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(0);
        List<Pod> pods = client.pods().inNamespace("ns").list().getItems();
        assertThat(pods).hasSize(2);
        Pod clientPod = pods.stream().filter(p -> p.getMetadata().getName().endsWith("-client")).findFirst().orElseThrow();
        assertThat(clientPod.getMetadata().getLabels()).containsKey(Names.PREFLIGHT_LABEL);
        assertThat(clientPod.getMetadata().getAnnotations()).containsEntry(Names.PREFLIGHT_ROLE_ANNOTATION, "client")
                .containsEntry(Names.PREFLIGHT_PEER_ANNOTATION, "node-01").containsEntry(Names.PREFLIGHT_HCA_ANNOTATION, "0");
        assertThat(clientPod.getSpec().getHostNetwork()).isTrue();
        assertThat(client.network().networkPolicies().inNamespace("ns").list().getItems()).as("none on the host network").isEmpty();
        assertThat(clientPod.getSpec().getContainers().getFirst().getImage()).isEqualTo("registry.local/railyard:test");
        assertThat(clientPod.getSpec().getContainers().getFirst().getArgs()).startsWith("preflight-link", "--role=client").contains("--port-base=18515")
                .anySatisfy(arg -> assertThat(arg).matches("--peer=10\\.1\\.0\\.\\d+"));
    }

    @Test
    void onThePodNetworkTheRunsTestPortsTakeItsOwnPodsOnly() throws Exception {
        PreflightCluster.nodes(client, 2, 1, "gpu");

        CommandRun run = preflight("--selector", "gpu=true", "--keep");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(0);
        String runId = client.pods().inNamespace("ns").list().getItems().getFirst().getMetadata().getLabels().get(Names.PREFLIGHT_LABEL);
        NetworkPolicy policy = client.network().networkPolicies().inNamespace("ns").withName("preflight-" + runId).get();
        assertThat(policy).as("kept with the pods").isNotNull();
        assertThat(policy.getSpec().getPodSelector().getMatchLabels()).isEqualTo(Map.of(Names.PREFLIGHT_LABEL, runId));
        assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress");
        assertThat(policy.getSpec().getIngress()).singleElement().satisfies(rule -> {
            assertThat(rule.getPorts()).as("every port").isEmpty();
            assertThat(rule.getFrom()).singleElement().satisfies(from -> assertThat(from.getPodSelector().getMatchLabels())
                    .isEqualTo(Map.of(Names.PREFLIGHT_LABEL, runId)));
        });
        assertThat(run.err()).contains("NetworkPolicy preflight-" + runId + ": the test ports take connections from this run's pods only");
        client.network().networkPolicies().inNamespace("ns").delete();
    }
}
