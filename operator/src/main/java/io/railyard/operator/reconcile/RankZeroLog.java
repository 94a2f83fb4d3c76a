package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.ContainerResource;
import io.fabric8.kubernetes.client.dsl.Loggable;
import io.railyard.operator.model.HangWatch;
import io.railyard.operator.model.InspectorSidecar;
import java.util.Optional;
import java.util.function.Function;

/** The beginning of rank 0's trainer log, where NCCL says which network it chose. */
@FunctionalInterface
public interface RankZeroLog {
    /**
     * NCCL prints its network lines once, at init, so the log is read from its start; bounded, as a job's log can be
     * gigabytes by the time an operator (restarted or upgraded during a long run) first reads it.
     */
    int HEAD_BYTES = 8 << 20;

    /** The last lines, where a failed trainer's NCCL errors are. */
    int TAIL_LINES = 2000;
    /** nccl-watch logs a line per change of state, nccl-speed one per interval: the last few hold the latest. */
    int WATCH_LINES = 5;

    Optional<String> read(String namespace, String pod);

    /** The end of the log, read once when a gang fails, for the node its NCCL errors name; the same text by default. */
    default Optional<String> tail(String namespace, String pod) {
        return read(namespace, pod);
    }

    /** The end of the nccl-watch sidecar's log in a pod, where its latest verdict is; none by default. */
    default Optional<String> watch(String namespace, String pod) {
        return Optional.empty();
    }

    /** The end of the first pod's nccl-speed log, where the job's latest interval is; none by default. */
    default Optional<String> speed(String namespace, String pod) {
        return Optional.empty();
    }

    /** Reads through the API server's pods/log endpoint. */
    static RankZeroLog through(KubernetesClient client) {
        return new RankZeroLog() {
            @Override
            public Optional<String> read(String namespace, String pod) {
                return log(namespace, pod, "trainer", container -> container.limitBytes(HEAD_BYTES));
            }

            @Override
            public Optional<String> tail(String namespace, String pod) {
                return log(namespace, pod, "trainer", container -> container.tailingLines(TAIL_LINES));
            }

            @Override
            public Optional<String> watch(String namespace, String pod) {
                return log(namespace, pod, HangWatch.CONTAINER, container -> container.tailingLines(WATCH_LINES));
            }

            @Override
            public Optional<String> speed(String namespace, String pod) {
                return log(namespace, pod, InspectorSidecar.CONTAINER, container -> container.tailingLines(WATCH_LINES));
            }

            private Optional<String> log(String namespace, String pod, String container, Function<ContainerResource, Loggable> part) {
                try {
                    return Optional.ofNullable(part.apply(client.pods().inNamespace(namespace).withName(pod).inContainer(container)).getLog());
                } catch (KubernetesClientException e) {
                    return Optional.empty(); // not started yet, or the log is not served: try again on the next reconcile
                }
            }
        };
    }
}
