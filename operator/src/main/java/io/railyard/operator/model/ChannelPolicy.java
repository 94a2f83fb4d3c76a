package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPortBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import java.util.List;
import java.util.Optional;

/**
 * A NetworkPolicy per job on the pod network: the job's own channels (rank 0's attempt barrier, the first pod's speed
 * gatherer) take connections from the job's own pods only; every other port of its pods stays open to anyone, as
 * without the policy. None on the host network, where a NetworkPolicy does not apply, and none where the installation
 * turned them off (a CNI that enforces none).
 */
final class ChannelPolicy {
    private ChannelPolicy() {}

    static String name(String job) {
        return job + "-channels";
    }

    static Optional<NetworkPolicy> desired(TrainingJob job, JobSettings settings, OperatorDefaults defaults) {
        boolean channels = settings.inPlace() || InspectorSidecar.enabled(settings.spec());
        if (!defaults.networkPolicy() || settings.hostNetwork() || !channels) {
            return Optional.empty();
        }
        int low = Math.min(RestartStrategies.BARRIER_PORT, InspectorSidecar.GATHER_PORT);
        int high = Math.max(RestartStrategies.BARRIER_PORT, InspectorSidecar.GATHER_PORT);
        List<NetworkPolicyPort> others = List.of(range("TCP", 1, low - 1), range("TCP", high + 1, 65535), range("UDP", 1, 65535),
                range("SCTP", 1, 65535));
        return Optional.of(new NetworkPolicyBuilder().withMetadata(Ownership.metadata(job, name(settings.name())))
                .withNewSpec()
                .withNewPodSelector().addToMatchLabels(Names.JOB_LABEL, settings.name()).endPodSelector()
                .withPolicyTypes("Ingress")
                .addNewIngress().addNewFrom().withNewPodSelector().addToMatchLabels(Names.JOB_LABEL, settings.name()).endPodSelector()
                .endFrom().endIngress()
                .addNewIngress().withPorts(others).endIngress()
                .endSpec().build());
    }

    private static NetworkPolicyPort range(String protocol, int from, int to) {
        return new NetworkPolicyPortBuilder().withProtocol(protocol).withPort(new IntOrString(from)).withEndPort(to).build();
    }
}
