package io.railyard.bench;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.railyard.cli.MockKubeconfig;
import io.railyard.cli.PreflightCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * {@code railyard preflight} over a ring of NODES nodes with DEVICES HCAs each, against the fabric8 CRUD mock API
 * server (no real API server can be had here) with instant results: a played scheduler and kubelets, the helper's logs
 * made of a real perftest output. Prints the sweep's wall time, when each round's pods were all created, the
 * command's API requests by verb, and a plain client creating as many pods on the same server, as a peer.
 * Arguments: [NODES] [DEVICES] (default 256 8).
 */
public final class PreflightScale {
    private PreflightScale() {}

    public static void main(String[] args) throws Exception {
        int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        int devices = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(), false);
        server.init();
        Path dir = Files.createTempDirectory("preflight-scale");
        // the played kubelet marks its requests, so that the command's own can be counted on the server
        try (KubernetesClient kubelet = new KubernetesClientBuilder().withConfig(server.createClient().getConfiguration())
                        .withHttpClientBuilderConsumer(builder -> builder.addOrReplaceInterceptor("mark", new Marking())).build();
                PreflightCluster cluster = new PreflightCluster(kubelet, "bench")) {
            double peer = plainClientCreates(kubelet, nodes);
            System.out.printf("peer: a plain client creating %d pods, 16 at a time: %.2f s%n", nodes, peer);
            PreflightCluster.nodes(kubelet, nodes, devices, "gpu");
            Path kubeconfig = MockKubeconfig.write(dir, kubelet);
            while (server.takeRequest(10, TimeUnit.MILLISECONDS) != null) {
                // the set-up's requests
            }
            long start = System.nanoTime();
            StringWriter out = new StringWriter();
            int code = cluster.preflight(new PrintWriter(out, true), new PrintWriter(new Stamped(start), true),
                    "preflight", "--kubeconfig=" + kubeconfig, "-n", "bench", "--selector", "gpu=true", "--poll-ms=250",
                    "--create-rate=100000"); // the command's own cost against the peer's, not the pacing
            double seconds = (System.nanoTime() - start) / 1e9;
            cluster.close(); // the played kubelet stops polling, so the server's record of requests can be drained
            System.out.printf("sweep of %d nodes x %d HCAs (%d links): exit %d in %.2f s; command's requests %s%n", nodes, devices,
                    nodes * devices, code, seconds, commandRequests(server));
            System.out.println(out.toString().lines().filter(l -> l.startsWith("PASS") || l.startsWith("FAIL")).findFirst().orElse("no verdict"));
        } finally {
            server.destroy();
        }
        System.exit(0);
    }

    /** The command's progress lines, each with the seconds since the sweep began. */
    static final class Stamped extends Writer {
        private final long start;
        private final StringBuilder line = new StringBuilder();

        Stamped(long start) {
            this.start = start;
        }

        @Override
        public void write(char[] buffer, int offset, int length) {
            for (int i = offset; i < offset + length; i++) {
                if (buffer[i] == '\n') {
                    System.out.printf("  %6.2f s  %s%n", (System.nanoTime() - start) / 1e9, line);
                    line.setLength(0);
                } else {
                    line.append(buffer[i]);
                }
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    }

    private static double plainClientCreates(KubernetesClient client, int count) throws Exception {
        long start = System.nanoTime();
        try (ExecutorService creators = Executors.newFixedThreadPool(16)) {
            for (int i = 0; i < count; i++) {
                String name = "peer-" + i;
                creators.submit(() -> client.pods().inNamespace("peer").resource(new PodBuilder().withNewMetadata().withName(name).endMetadata()
                        .withNewSpec().addNewContainer().withName("c").withImage("busybox").endContainer().endSpec().build()).create());
            }
        }
        return (System.nanoTime() - start) / 1e9;
    }

    /** The requests the server received from anyone but the played kubelet, by verb and resource, watches aside. */
    private static Map<String, Long> commandRequests(KubernetesMockServer server) throws InterruptedException {
        Map<String, Long> counts = new TreeMap<>();
        RecordedRequest request;
        while ((request = server.takeRequest(100, TimeUnit.MILLISECONDS)) != null) {
            String path = request.getPath();
            if (request.getHeader(MARK) != null || path.contains("watch=true")) {
                continue;
            }
            String kind = path.replaceAll("\\?.*", "").replaceAll(".*/namespaces/[^/]+/", "").replaceAll("^/api/v1/", "")
                    .replaceAll("^pods/[^/]+/log$", "pods/log").replaceAll("^(pods|nodes)/[^/]+$", "$1");
            counts.merge(request.getMethod() + " " + kind, 1L, Long::sum);
        }
        return counts;
    }

    private static final String MARK = "X-Played-By";

    private static final class Marking implements Interceptor {
        @Override
        public void before(BasicBuilder builder, HttpRequest request, Interceptor.RequestTags tags) {
            builder.header(MARK, "kubelet");
        }
    }
}
