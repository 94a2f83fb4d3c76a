package io.railyard.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Deleting an earlier run's pods must never delete the new pod that took one's name, however late the request arrives. */
@EnableKubernetesMockClient
class GangPodsTest {
    KubernetesMockServer server;
    KubernetesClient client;

    @Test
    void eachPodIsDeletedWithItsUidAsAPreconditionAndAConflictIsNoError() throws InterruptedException {
        Pod earlier = new PodBuilder().withNewMetadata().withName("gang-3").withNamespace("ns").withUid("uid-of-run-0").endMetadata().build();
        server.expect().delete().withPath("/api/v1/namespaces/ns/pods/gang-3").andReturn(409, "{\"kind\":\"Status\",\"code\":409,"
                + "\"reason\":\"Conflict\",\"message\":\"Precondition failed: UID in precondition: uid-of-run-0, UID in object meta: uid-of-run-1\"}").once();

        GangPods.deleteExactly(client, List.of(earlier));

        var request = server.takeRequest();
        assertThat(request.getMethod()).isEqualTo("DELETE");
        assertThat(request.getPath()).isEqualTo("/api/v1/namespaces/ns/pods/gang-3");
        assertThat(request.getBody().readUtf8()).contains("\"preconditions\":{\"uid\":\"uid-of-run-0\"}");
    }
}
