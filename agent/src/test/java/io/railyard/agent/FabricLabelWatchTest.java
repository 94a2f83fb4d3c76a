package io.railyard.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The agent follows its own Node's fabric labels (the fabric8 CRUD mock API server: no real API server here). */
@EnableKubernetesMockClient(crud = true)
class FabricLabelWatchTest {
    KubernetesClient client;

    @Test
    void aFabricLabelWrittenAfterStartIsHandedOnAndOtherLabelsAreNot() {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-1").addToLabels("keep", "me").endMetadata().build()).create();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-2").endMetadata().build()).create();
        List<Map<String, String>> seen = new CopyOnWriteArrayList<>();

        try (FabricLabelWatch watch = FabricLabelWatch.start(client, "gpu-1", Map.of("keep", "me"), seen::add)) {
            client.nodes().withName("gpu-1").edit(n -> new NodeBuilder(n).editMetadata().addToLabels("other", "x").endMetadata().build());
            client.nodes().withName("gpu-2").edit(n -> new NodeBuilder(n).editMetadata().addToLabels("railyard.io/fabric.shape", "fat-tree")
                    .endMetadata().build());
            client.nodes().withName("gpu-1").edit(n -> new NodeBuilder(n).editMetadata().addToLabels("railyard.io/fabric.shape", "rail-optimized")
                    .addToLabels("railyard.io/fabric.tiers", "3").endMetadata().build());

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(seen).singleElement().satisfies(labels -> assertThat(labels)
                    .containsEntry("railyard.io/fabric.shape", "rail-optimized").containsEntry("railyard.io/fabric.tiers", "3")));
        }
    }
}
