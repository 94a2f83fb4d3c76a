package io.railyard.operator.preflight;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Optional;

/**
 * A NetworkPolicy for the minutes of a sweep (preflight, speedup) on the pod network: its pods take connections from
 * the run's own pods only. ib_write_bw and iperf3 serve the first client that connects and cannot be told their peer;
 * this keeps every other pod of the cluster from being that client, on a CNI that enforces NetworkPolicy. None on the
 * host network, where a NetworkPolicy does not apply.
 */
final class SweepIsolation {
    private SweepIsolation() {}

    static NetworkPolicy desired(PodPairSweep.Plan plan) {
        return new NetworkPolicyBuilder().withNewMetadata().withName(plan.prefix() + "-" + plan.run()).withNamespace(plan.namespace())
                .addToLabels(plan.label(), plan.run()).endMetadata()
                .withNewSpec()
                .withNewPodSelector().addToMatchLabels(plan.label(), plan.run()).endPodSelector()
                .withPolicyTypes("Ingress")
                .addNewIngress().addNewFrom().withNewPodSelector().addToMatchLabels(plan.label(), plan.run()).endPodSelector().endFrom().endIngress()
                .endSpec().build();
    }

    /** Creates the run's policy; when the API refuses it, says why and what that leaves open, and the run goes on. */
    static Optional<String> create(KubernetesClient client, PodPairSweep.Plan plan) {
        NetworkPolicy policy = desired(plan);
        try {
            client.resource(policy).create();
            return Optional.of("NetworkPolicy " + policy.getMetadata().getName() + ": the test ports take connections from this run's pods only");
        } catch (KubernetesClientException e) {
            return Optional.of("no NetworkPolicy (" + (e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage()
                    : e.getMessage()) + "): the test ports are open to every pod for this run");
        }
    }

    static void delete(KubernetesClient client, PodPairSweep.Plan plan) {
        client.network().networkPolicies().inNamespace(plan.namespace()).withName(plan.prefix() + "-" + plan.run()).delete();
    }
}
