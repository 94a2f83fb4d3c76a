package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Optional;

/** The end of rank 0's trainer log, where NCCL says which network it chose. */
@FunctionalInterface
public interface RankZeroLog {
    /** Bounded: NCCL's network lines come early, and a job's log can be gigabytes. */
    int TAIL_LINES = 20_000;

    Optional<String> read(String namespace, String pod);

    /** Reads through the API server's pods/log endpoint. */
    static RankZeroLog through(KubernetesClient client) {
        return (namespace, pod) -> {
            try {
                return Optional.ofNullable(client.pods().inNamespace(namespace).withName(pod).inContainer("trainer")
                        .tailingLines(TAIL_LINES).getLog());
            } catch (KubernetesClientException e) {
                return Optional.empty(); // not started yet, or the log is not served: try again on the next reconcile
            }
        };
    }
}
