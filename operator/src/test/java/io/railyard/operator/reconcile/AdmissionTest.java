package io.railyard.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import io.railyard.testkit.MovingClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Pods the API server refuses. The fabric8 CRUD mock admits everything, so the refusals are the mock's expectations,
 * with the messages a real API server sends (Pod Security admission's and a ResourceQuota's, as kubectl prints them).
 */
@EnableKubernetesMockClient(crud = true)
class AdmissionTest {
    static KubernetesClient client;
    static KubernetesMockServer server;

    private static final String POD_SECURITY = "pods \\\"refused-0\\\" is forbidden: violates PodSecurity \\\"baseline:latest\\\": "
            + "non-default capabilities (container \\\"trainer\\\" must not include \\\"IPC_LOCK\\\" in securityContext.capabilities.add)";

    private static String status(int code, String reason, String message) {
        return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":%d,\"reason\":\"%s\",\"message\":\"%s\"}"
                .formatted(code, reason, message);
    }

    private static TrainingJob job(String name) {
        return client.resources(TrainingJob.class).inNamespace("ns").withName(name).get();
    }

    private static Optional<Condition> condition(String name, String type) {
        TrainingJob job = job(name);
        return job == null || job.getStatus() == null || job.getStatus().conditions == null ? Optional.empty()
                : job.getStatus().conditions.stream().filter(c -> c.getType().equals(type)).findFirst();
    }

    private static int pods(String job) {
        return client.pods().inNamespace("ns").withLabel(Names.JOB_LABEL, job).list().getItems().size();
    }

    /** Something that wakes the reconciler without changing the spec: a label. */
    private static void touch(String name, String value) {
        client.resources(TrainingJob.class).inNamespace("ns").withName(name)
                .edit(job -> {
                    job.getMetadata().setLabels(Map.of("touched", value));
                    return job;
                });
    }

    @Test
    void aPodSecurityRefusalIsAConditionWithTheApisWordsAndTheNextTryWaits() {
        MovingClock clock = new MovingClock(Instant.now());
        server.expect().post().withPath("/api/v1/namespaces/ns/pods").andReturn(403, status(403, "Forbidden", POD_SECURITY)).times(2);
        try (OperatorUnderTest ignored = OperatorUnderTest.start(client, (namespace, pod) -> Optional.empty(), clock)) {
            OperatorUnderTest.create(client, "refused", "{image: pytorch, script: t.py, nodes: 2, gpusPerNode: 8}");

            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(condition("refused", "PodsRejected"))
                    .hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("True")));
            Condition rejected = condition("refused", "PodsRejected").orElseThrow();
            assertThat(rejected.getReason()).isEqualTo("PodSecurity");
            assertThat(rejected.getMessage()).contains("violates PodSecurity \"baseline:latest\"", "IPC_LOCK",
                    "pod-security.kubernetes.io/enforce=privileged", "refused 1 time", "next try in 10 s");
            TrainingJobStatus.PodRejection rejection = job("refused").getStatus().podRejection;
            assertThat(rejection.count).isEqualTo(1);
            assertThat(rejection.reason).isEqualTo("PodSecurity");
            assertThat(job("refused").getStatus().phase).isNotEqualTo("Failed");
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(client.v1().events().inNamespace("ns").list().getItems())
                    .filteredOn(e -> e.getInvolvedObject().getName().equals("refused")).extracting(Event::getReason, Event::getType)
                    .contains(org.assertj.core.groups.Tuple.tuple("PodSecurity", "Warning")));

            // woken within the wait (no spec change): no new request; had it retried, the CRUD mock would have created the pods
            touch("refused", "1");
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> pods("refused") == 0);

            // the wait over, and nothing else happening: the next try is made at its time, and the API server now accepts the pods
            clock.advance(Duration.ofSeconds(11));
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pods("refused")).isEqualTo(2));
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(condition("refused", "PodsRejected"))
                    .hasValueSatisfying(c -> assertThat(c.getReason()).isEqualTo("Admitted")));
            assertThat(condition("refused", "PodsRejected").orElseThrow().getStatus()).isEqualTo("False");
            assertThat(job("refused").getStatus().podRejection).isNull();
        }
    }

    @Test
    void theWaitDoublesToFiveMinutesAndASpecChangeEndsIt() {
        assertThat(List.of(1, 2, 3, 4, 5, 6, 12).stream().map(n -> Admission.delay(n).toSeconds()))
                .containsExactly(10L, 20L, 40L, 80L, 160L, 300L, 300L);
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        TrainingJobStatus status = new TrainingJobStatus();
        status.podRejection = new TrainingJobStatus.PodRejection();
        status.podRejection.count = 3;
        status.podRejection.last = now.toString();
        status.conditions = List.of(new io.fabric8.kubernetes.api.model.ConditionBuilder().withType("PodsRejected").withStatus("True")
                .withObservedGeneration(4L).build());

        assertThat(Admission.waiting(status, 4, now.plusSeconds(30))).contains(Duration.ofSeconds(10));
        assertThat(Admission.waiting(status, 4, now.plusSeconds(40))).isEmpty();
        assertThat(Admission.waiting(status, 5, now.plusSeconds(1))).isEmpty();
        assertThat(Admission.waiting(new TrainingJobStatus(), 4, now)).isEmpty();
    }

    @Test
    void refusalsAreToldApartByTheApisWords() {
        KubernetesClientException quota = new KubernetesClientException(new io.fabric8.kubernetes.api.model.StatusBuilder().withCode(403)
                .withMessage("pods \"j-0\" is forbidden: exceeded quota: gpus, requested: requests.nvidia.com/gpu=8, used: "
                        + "requests.nvidia.com/gpu=8, limited: requests.nvidia.com/gpu=8").build());
        KubernetesClientException webhook = new KubernetesClientException(new io.fabric8.kubernetes.api.model.StatusBuilder().withCode(400)
                .withMessage("admission webhook \"validation.gatekeeper.sh\" denied the request: [no-host-network] hostNetwork is not allowed").build());
        KubernetesClientException invalid = new KubernetesClientException(new io.fabric8.kubernetes.api.model.StatusBuilder().withCode(422)
                .withMessage("Pod \"j-0\" is invalid: spec.containers[0].image: Required value").build());
        KubernetesClientException conflict = new KubernetesClientException(new io.fabric8.kubernetes.api.model.StatusBuilder().withCode(409).build());
        KubernetesClientException throttled = new KubernetesClientException(new io.fabric8.kubernetes.api.model.StatusBuilder().withCode(429).build());

        assertThat(List.of(quota, webhook, invalid).stream().map(Admission::reason)).containsExactly("QuotaExceeded", "WebhookDenied", "Invalid");
        assertThat(Admission.message(quota)).startsWith("pods \"j-0\" is forbidden: exceeded quota: gpus");
        assertThat(List.of(quota, webhook, invalid, conflict, throttled).stream().map(Admission::refusal))
                .containsExactly(true, true, true, false, false);
    }
}
