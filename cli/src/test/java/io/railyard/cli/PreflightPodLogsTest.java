package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.railyard.operator.preflight.HelperOutput;
import io.railyard.operator.preflight.PodLogs;
import io.railyard.operator.preflight.PreflightPods;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/** The sweep's log source in production: the API's pods/log endpoint (a mock expectation: the CRUD mock serves no logs). */
@EnableKubernetesMockClient
class PreflightPodLogsTest {
    static KubernetesClient client;
    static KubernetesMockServer server;

    @Test
    void aClientsLogIsReadThroughPodsLogAndParsed() throws Exception {
        String log = HelperOutput.begin("client", 0, "mlx5_0", 1, 200.0, "10.1.0.7") + "\n"
                + Files.readString(PreflightCluster.PERFTEST.resolve(PreflightCluster.FAST)) + HelperOutput.end("client", 0, "mlx5_0", "0") + "\n";
        server.expect().get().withPath("/api/v1/namespaces/ns/pods/preflight-x-0-0-client/log?container=preflight").andReturn(200, log).once();

        String read = PodLogs.through(client, PreflightPods.CONTAINER).read("ns", "preflight-x-0-0-client").orElseThrow();

        assertThat(HelperOutput.parse(read).runs()).singleElement().satisfies(run -> assertThat(run.gbps()).isEqualTo(197.7));
    }

    @Test
    void aLogTheApiWillNotGiveIsAbsentNotAnError() {
        server.expect().get().withPath("/api/v1/namespaces/ns/pods/gone/log?container=preflight").andReturn(404, "{\"kind\":\"Status\",\"code\":404}").once();

        assertThat(PodLogs.through(client, PreflightPods.CONTAINER).read("ns", "gone")).isEmpty();
    }
}
