package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.net.ServerSocket;
import java.time.Duration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * First contact, as a person meets it: railyard run as its own process with no cluster configured, with a server that
 * refuses or never answers, and with one that does not know the user. One line each, the right exit code, and no
 * waiting past the client's timeouts.
 */
class ClusterContactIT {
    @TempDir
    Path dir;

    /**
     * A JVM's start and one refused connection, with room for a loaded 2-core machine; the client's default retries
     * (ten, backing off from 100 ms) would take minutes.
     */
    private static final long QUICK_MILLIS = 10_000;

    private record Run(int exitCode, String err, long millis) {}

    private Run railyard(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
                System.getProperty("java.class.path"), "io.railyard.cli.Railyard"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(dir.resolve("err").toFile());
        builder.environment().remove("KUBECONFIG");
        builder.environment().remove("KUBERNETES_SERVICE_HOST");
        builder.environment().put("HOME", Files.createDirectories(dir.resolve("home")).toString());
        long start = System.nanoTime();
        Process process = builder.start();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Run(process.exitValue(), Files.readString(dir.resolve("err")), (System.nanoTime() - start) / 1_000_000);
    }

    private Path kubeconfig(String server) throws Exception {
        return Files.writeString(dir.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters:
                - name: c
                  cluster: {server: "%s", insecure-skip-tls-verify: true}
                contexts:
                - name: c
                  context: {cluster: c, user: alice}
                current-context: c
                users:
                - name: alice
                  user: {token: expired}
                """.formatted(server));
    }

    @Test
    void withNoClusterConfiguredEveryCommandSaysWhereItLookedAndExitsTwo() throws Exception {
        for (String[] args : List.of(new String[] {"submit", "-f", HelmTool.REPO.resolve("examples/trainingjobs/llama70b-roce.yaml").toString()},
                new String[] {"status", "foo"}, new String[] {"operator"})) {
            Run run = railyard(args);

            assertThat(run.exitCode()).as(args[0]).isEqualTo(2);
            assertThat(run.err()).as(args[0]).isEqualTo(args[0] + ": no Kubernetes cluster to talk to: KUBECONFIG is not set,"
                    + " ~/.kube/config does not exist and there is no in-cluster service account; give --kubeconfig FILE or set KUBECONFIG\n");
            assertThat(run.millis()).as(args[0]).isLessThan(QUICK_MILLIS);
        }
    }

    @Test
    void aServerThatRefusesIsOneLineNamingItAndExitOne() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        Run run = railyard("status", "foo", "--kubeconfig", kubeconfig("https://127.0.0.1:" + closed).toString());

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).isEqualTo("status: cannot use the Kubernetes API at https://127.0.0.1:" + closed
                + "/: connection refused (is the API server up, and is this its address?)\n");
        assertThat(run.millis()).isLessThan(QUICK_MILLIS);
    }

    @Test
    void aServerThatNeverAnswersIsOneLineAfterTheClientsTimeout() throws Exception {
        try (ServerSocket silent = new ServerSocket(0)) {   // accepts connections into its backlog, never answers
            Run run = railyard("submit", "-f", HelmTool.REPO.resolve("examples/trainingjobs/llama70b-roce.yaml").toString(),
                    "--kubeconfig", kubeconfig("http://127.0.0.1:" + silent.getLocalPort()).toString());

            assertThat(run.exitCode()).isEqualTo(1);
            assertThat(run.err()).startsWith("submit: cannot use the Kubernetes API at http://127.0.0.1:" + silent.getLocalPort() + "/: no answer within")
                    .hasLineCount(1);
            assertThat(run.millis()).isLessThan(20_000);   // one request timeout (10 s), not a retry
        }
    }

    @Test
    void aServerThatDoesNotKnowTheUserSaysWhoAndExitsOne() throws Exception {
        KubernetesMockServer server = new KubernetesMockServer(false);
        server.start();
        try {
            String unauthorized = "{\"kind\":\"Status\",\"code\":401,\"message\":\"Unauthorized\"}";
            server.expect().get().withPath("/version").andReturn(401, unauthorized).always();
            server.expect().get().withPath("/apis/railyard.io/v1alpha1/namespaces/default/trainingjobs/foo").andReturn(401, unauthorized).always();

            Run run = railyard("status", "foo", "--kubeconfig", kubeconfig(server.url("/").replaceAll("/$", "")).toString());

            assertThat(run.exitCode()).isEqualTo(1);
            assertThat(run.err()).endsWith(": 401 Unauthorized: user alice is not known to the server (an expired token or certificate?)\n")
                    .hasLineCount(1);
        } finally {
            server.destroy();
        }
    }

    @Test
    void anOperatorWhoseServerDoesNotSayItsVersionRestartsByRecreatingAndRuns() throws Exception {
        var expectations = new HashMap<io.fabric8.mockwebserver.ServerRequest, java.util.Queue<io.fabric8.mockwebserver.ServerResponse>>();
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), expectations,
                new KubernetesMixedDispatcher(expectations), false);
        server.init();
        server.expect().get().withPath("/version").andReturn(200, "{\"major\":\"1\",\"minor\":\"37\"}").always();
        // the operator's start asks what it may do; the CRUD mock cannot answer a review: everything
        server.expect().post().withPath("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews").andReturn(201, "{\"apiVersion\":"
                + "\"authorization.k8s.io/v1\",\"kind\":\"SelfSubjectRulesReview\",\"metadata\":{},\"spec\":{\"namespace\":\"default\"},"
                + "\"status\":{\"resourceRules\":[{\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],\"resources\":[\"*\"]}],"
                + "\"nonResourceRules\":[],\"incomplete\":false}}").always();
        Path log = dir.resolve("operator.log");
        Process operator = new ProcessBuilder(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
                System.getProperty("java.class.path"), "io.railyard.cli.Railyard", "operator", "--leader-election-namespace", "default",
                "--kubeconfig", kubeconfig(server.url("/").replaceAll("/$", "")).toString()))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(Files.readString(log))
                    .contains("gangs restart by recreating their pods (--in-place-restart=auto, Kubernetes unknown)"));
            Thread.sleep(2000); // what comes after the decision: the operator's start
            assertThat(operator.isAlive()).as(Files.readString(log)).isTrue();
            assertThat(Files.readString(log)).doesNotContain("Exception").doesNotContain("internal error");
        } finally {
            operator.destroyForcibly();
            server.destroy();
        }
    }
}
