package io.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.api.Names;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/** The control plane failing under the operator: the API server away for 10 s, a watch answered 410 Gone after a compaction. */
@ExtendWith(RealCluster.class)
@Order(8)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FaultsIT {
    private static final int RANKS = 16;

    private Installation railyard;
    private KubernetesClient client;
    private String namespace;

    @BeforeAll
    void nodes(Installation railyard) {
        this.railyard = railyard;
        this.client = railyard.cluster.admin;
        this.namespace = railyard.jobNamespace("faults");
        for (int i = 1; i <= RANKS + 2; i++) {
            KwokNodes.rdma(client, "faults-rdma-" + i, "faults");
        }
    }

    @Test
    void theApiServerStoppedForTenSecondsDuringAGangsCreationEveryPodIsCreatedOnce() throws InterruptedException {
        Instant submittedAt = Instant.now();
        railyard.submit(Jobs.yaml(namespace, "outage", RANKS, "faults"));
        Awaitility.await("the operator starts creating the gang").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                .until(() -> !Jobs.pods(client, namespace, "outage").isEmpty());
        railyard.cluster.stop("kube-apiserver");
        Thread.sleep(Duration.ofSeconds(10)); // the outage itself, not a wait for a condition: the server stays away this long
        railyard.cluster.start("kube-apiserver");
        awaitReady();

        List<Pod> running = awaitRunning("outage", RANKS, Duration.ofSeconds(180));
        assertThat(running.stream().map(p -> p.getMetadata().getLabels().get(Names.INDEX_LABEL)).distinct()).hasSize(RANKS);
        long created = Audit.operatorRequests(railyard.cluster, submittedAt).stream()
                .filter(r -> r.resource().equals("pods") && r.namespace().equals(namespace) && r.verb().equals("create") && r.code() == 201)
                .count();
        assertThat(created).as("pods the operator created").isEqualTo(RANKS);
    }

    @Test
    void aWatchAnsweredGoneAfterACompactionListsAgainAndMissesNothing() throws Exception {
        railyard.submit(Jobs.yaml(namespace, "compacted", 2, "faults"));
        List<Pod> running = awaitRunning("compacted", 2, Duration.ofSeconds(90));

        // the operator frozen holds its watches' resource versions; what happens meanwhile it must find by listing again
        railyard.operator.signal("STOP");
        Instant frozen = Instant.now();
        try {
            Pod lost = running.getFirst();
            client.resource(lost).withGracePeriod(0).delete();
            Awaitility.await("the pod gone").atMost(Duration.ofSeconds(30)).until(() -> client.resource(lost).get() == null);
            compactEtcd();
            railyard.cluster.stop("kube-apiserver"); // its watch cache then starts after the compaction: older versions are 410 Gone
            railyard.cluster.start("kube-apiserver");
            awaitReady();
        } finally {
            railyard.operator.signal("CONT");
        }
        awaitRunning("compacted", 2, Duration.ofSeconds(120));
        // the informer's watch from its old resource version ended at once (410 Gone), and it listed every job's pods again:
        // a list without a resource version, where its first list (resourceVersion=0) may come from the watch cache
        assertThat(Audit.operatorRequests(railyard.cluster, frozen)).as("the operator's pods informer listed again")
                .anySatisfy(r -> assertThat(r.uri()).startsWith("/api/v1/pods?labelSelector=").doesNotContain("resourceVersion"));
    }

    private void awaitReady() {
        Awaitility.await("the API server ready again").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                .until(() -> client.getKubernetesVersion() != null && Jobs.pods(client, namespace, "none").isEmpty());
    }

    private List<Pod> awaitRunning(String job, int ranks, Duration within) {
        return Jobs.awaitRunning(client, namespace, job, ranks, within);
    }

    /** Compacts etcd at its newest revision through its gRPC gateway, as etcdctl compact does, and defragments nothing. */
    private void compactEtcd() throws IOException, InterruptedException {
        String args = Files.readString(railyard.cluster.dir.resolve("kube-apiserver.args"));
        Matcher server = Pattern.compile("--etcd-servers\u0000(http://[^\u0000]+)").matcher(args);
        assertThat(server.find()).as("the API server's etcd in its command line").isTrue();
        HttpClient http = HttpClient.newHttpClient();
        String range = post(http, server.group(1) + "/v3/kv/range", "{\"key\": \"L3JlZ2lzdHJ5\"}"); // "/registry"
        Matcher revision = Pattern.compile("\"revision\":\"(\\d+)\"").matcher(range);
        assertThat(revision.find()).as(range).isTrue();
        post(http, server.group(1) + "/v3/kv/compaction", "{\"revision\": \"" + revision.group(1) + "\", \"physical\": true}");
    }

    private static String post(HttpClient http, String url, String body) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(url + ": " + response.body()).isEqualTo(200);
        return response.body();
    }
}
