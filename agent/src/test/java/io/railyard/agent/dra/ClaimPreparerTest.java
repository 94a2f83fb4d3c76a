package io.railyard.agent.dra;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.railyard.agent.AgentConfig;
import io.railyard.agent.PortHealth;
import io.railyard.node.NodeDiscovery;
import io.railyard.node.Sysfs;
import io.railyard.testkit.ExampleNodes;
import io.railyard.testkit.HostTree;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClaimPreparerTest {
    private static final String WAITING = "0f6c2f4e-5a1b-4c1d-9e2f-000000000001";
    private static final String GOING = "0f6c2f4e-5a1b-4c1d-9e2f-000000000002";

    @TempDir
    Path dir;

    /** An API server that takes the request and never answers, as one does under overload or behind a dead route. */
    @Test
    void aPrepareWaitingOnAHungApiServerDoesNotHoldUpAnotherClaimsUnprepare() throws Exception {
        HostTree tree = ExampleNodes.write(ExampleNodes.ROCE, dir.resolve("host"));
        Map<String, DraDevice> devices = DraDevice.forNode(NodeDiscovery.discover(tree.root()), AgentConfig.defaults()).stream()
                .collect(Collectors.toMap(DraDevice::name, Function.identity()));
        Path cdi = Files.createDirectories(dir.resolve("cdi"));
        CountDownLatch requested = new CountDownLatch(1);
        try (ServerSocket hung = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> {
                try (Socket connection = hung.accept(); InputStream in = connection.getInputStream()) {
                    in.read(); // the GET has arrived; no answer follows
                    requested.countDown();
                    in.readAllBytes();
                } catch (Exception e) {
                    // the test is over
                }
            });
            try (KubernetesClient client = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
                    .withMasterUrl("http://127.0.0.1:" + hung.getLocalPort()).withRequestTimeout(3_000).withRequestRetryBackoffLimit(0).build()).build()) {
                ClaimPreparer preparer = new ClaimPreparer(client, DraAgent.DEFAULT_DRIVER, "node", cdi, new ClaimCheckpoint(dir.resolve("claims")),
                        new Sysfs(tree.root()), () -> devices, name -> new PortHealth(true, ""), List.of(), resource -> io.railyard.agent.ContainerExtras.NONE);
                Path goingSpec = Files.writeString(CdiSpec.file(cdi, DraAgent.DEFAULT_DRIVER, GOING), "{}"); // prepared before

                CompletableFuture<ClaimPreparer.Result> waiting = CompletableFuture.supplyAsync(
                        () -> preparer.prepare(new ClaimPreparer.ClaimRef("ns", WAITING, "waiting")));
                assertThat(requested.await(10, TimeUnit.SECONDS)).isTrue();

                assertThat(preparer.unprepare(new ClaimPreparer.ClaimRef("ns", GOING, "going"))).isNull();
                assertThat(goingSpec).doesNotExist();
                assertThat(waiting).isNotDone();
                assertThat(waiting.get(20, TimeUnit.SECONDS).error()).startsWith("cannot read ResourceClaim ns/waiting");
            }
        }
    }
}
