package io.railyard.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.railyard.api.TrainingJob;
import org.junit.jupiter.api.Test;

class LenientReadingTest {
    private static final KubernetesSerialization SERIALIZATION = LenientReading.serialization();

    @Test
    void whatTheClassesCannotReadIsNotedByPathAndTheRestIsRead() {
        TrainingJob job = SERIALIZATION.unmarshal("""
                {"apiVersion": "railyard.io/v1alpha1", "kind": "TrainingJob", "metadata": {"name": "j", "namespace": "ns"},
                 "spec": {"image": "pytorch", "script": "t.py", "nodes": "two", "gpusPerNode": 8,
                          "rdma": {"devicesPerNodes": 4, "gpuDirect": true}, "elasticPolicy": {"minNodes": 1}}}
                """, TrainingJob.class);

        assertThat(job.unreadFields()).containsExactly("spec.nodes: 'two' is not an integer", "spec.rdma.devicesPerNodes: unknown field",
                "spec.elasticPolicy: unknown field");
        assertThat(job.getSpec().gpusPerNode).isEqualTo(8);
        assertThat(job.getSpec().rdma.gpuDirect).isTrue();
    }

    @Test
    void aJobReadWholeHasNothingUnreadAndKeepsItThroughJosdksCopy() {
        String json = "{\"apiVersion\": \"railyard.io/v1alpha1\", \"kind\": \"TrainingJob\", \"metadata\": {\"name\": \"j\"},"
                + " \"spec\": {\"image\": \"p\", \"script\": \"t.py\", \"nodes\": 2, \"gpusPerNode\": 8}}";
        TrainingJob whole = SERIALIZATION.unmarshal(json, TrainingJob.class);
        TrainingJob partial = SERIALIZATION.unmarshal(json.replace("\"nodes\": 2", "\"nodes\": 2, \"extra\": 1"), TrainingJob.class);

        assertThat(whole.unreadFields()).isEmpty();
        assertThat(LenientReading.cloner(SERIALIZATION).clone(partial).unreadFields()).containsExactly("spec.extra: unknown field");
        assertThat(SERIALIZATION.asJson(partial)).doesNotContain("unread").doesNotContain("extra");
    }
}
