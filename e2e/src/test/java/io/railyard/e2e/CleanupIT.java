package io.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/** Deleting a TrainingJob, whatever its phase, leaves nothing it owned: the garbage collector and the operator's finalizer. */
@ExtendWith(RealCluster.class)
@Order(7)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CleanupIT {
    private Installation railyard;
    private KubernetesClient client;
    private String namespace;

    @BeforeAll
    void nodes(Installation railyard) {
        this.railyard = railyard;
        this.client = railyard.cluster.admin;
        this.namespace = railyard.jobNamespace("cleanup");
        for (int i = 1; i <= 2; i++) {
            KwokNodes.rdma(client, "cleanup-rdma-" + i, "cleanup");
        }
    }

    @Test
    void aRunningJobDeletedLeavesNoPodNoServiceNoFinalizer() {
        submit(Jobs.yaml(namespace, "running", 2, "cleanup"));
        Jobs.awaitRunning(client, namespace, "running", 2, Duration.ofSeconds(90));
        assertThat(Jobs.get(client, namespace, "running").getMetadata().getFinalizers()).isNotEmpty();
        // its pods restart in place through the attempt barrier: the channel's key and NetworkPolicy, owned by the job
        assertThat(client.secrets().inNamespace(namespace).withName("running-channel").get().getMetadata().getOwnerReferences())
                .singleElement().satisfies(owner -> assertThat(owner.getName()).isEqualTo("running"));
        assertThat(client.network().v1().networkPolicies().inNamespace(namespace).withName("running-channels").get()).isNotNull();
        assertDeletedWithAllItOwned("running");
    }

    @Test
    void aFailedJobDeletedLeavesNothing() {
        submit(Jobs.yaml(namespace, "failed", 1, "cleanup").replace("backoffLimit: 2", "backoffLimit: 0"));
        Pod rankZero = Awaitility.await("rank 0 Running").atMost(Duration.ofSeconds(90))
                .until(() -> Jobs.rankZero(client, namespace, "failed"), p -> "Running".equals(client.resource(p).get().getStatus().getPhase()));
        KwokNodes.exit(client, namespace, rankZero.getMetadata().getName(), 1);
        Awaitility.await("the job Failed").atMost(Duration.ofSeconds(60))
                .until(() -> phase("failed"), "Failed"::equals);
        assertDeletedWithAllItOwned("failed");
    }

    @Test
    void anInvalidSpecJobDeletedLeavesNothing() {
        // the API server takes a hostPath dataset; the operator refuses it, as no --allowed-host-paths covers it
        submit(Jobs.yaml(namespace, "invalid", 1, "cleanup").replace("  scheduling:", "  dataset:\n    hostPath: /mnt/lustre/pile\n    mountPath: /data\n  scheduling:"));
        Awaitility.await("the job Failed as InvalidSpec").atMost(Duration.ofSeconds(60))
                .until(() -> Jobs.condition(client, namespace, "invalid", "Failed").map(c -> c.getReason()).orElse(""), "InvalidSpec"::equals);
        assertDeletedWithAllItOwned("invalid");
    }

    @Test
    void aSucceededJobIsDeletedWithAllItOwnedOnceItsTtlRunsOut() {
        submit(Jobs.yaml(namespace, "ttl", 1, "cleanup").replace("backoffLimit: 2", "backoffLimit: 2\n    ttlSecondsAfterFinished: 1"));
        Pod rankZero = Awaitility.await("rank 0 Running").atMost(Duration.ofSeconds(90))
                .until(() -> Jobs.rankZero(client, namespace, "ttl"), p -> "Running".equals(client.resource(p).get().getStatus().getPhase()));
        KwokNodes.exit(client, namespace, rankZero.getMetadata().getName(), 0);
        Awaitility.await("the operator deletes the job a second after it succeeded").atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(Jobs.get(client, namespace, "ttl")).isNull();
            assertThat(Jobs.pods(client, namespace, "ttl")).isEmpty();
        });
    }

    private void submit(String yaml) {
        railyard.submit(yaml);
    }

    private String phase(String job) {
        TrainingJob current = Jobs.get(client, namespace, job);
        return current == null || current.getStatus() == null ? null : current.getStatus().phase;
    }

    private void assertDeletedWithAllItOwned(String job) {
        client.resources(TrainingJob.class).inNamespace(namespace).withName(job).delete();
        Awaitility.await(job + " gone with its finalizer, its pods and service").atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(Jobs.get(client, namespace, job)).isNull();
            assertThat(Jobs.pods(client, namespace, job)).isEmpty();
            assertThat(client.services().inNamespace(namespace).withLabel(Names.JOB_LABEL, job).list().getItems()).isEmpty();
            assertThat(client.dynamicResourceAllocation().v1().resourceClaimTemplates().inNamespace(namespace)
                    .withLabel(Names.JOB_LABEL, job).list().getItems()).isEmpty();
            assertThat(client.secrets().inNamespace(namespace).withLabel(Names.JOB_LABEL, job).list().getItems()).isEmpty();
            assertThat(client.network().v1().networkPolicies().inNamespace(namespace).withLabel(Names.JOB_LABEL, job).list().getItems()).isEmpty();
        });
        assertThat(railyard.operator.output()).doesNotContain("Exception").doesNotContain("\tat ");
    }
}
