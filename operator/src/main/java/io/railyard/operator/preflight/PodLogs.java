package io.railyard.operator.preflight;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Optional;

/** Where a pod's log comes from: the API's pods/log, or a test's stand-in (the CRUD mock server serves no logs). */
public interface PodLogs {
    Optional<String> read(String namespace, String pod);

    /**
     * One GET of pods/log per pod, of the named container. The client's getLog first waits for the pod to be ready (a
     * list and a watch), which a finished pod does not need.
     */
    public static PodLogs through(KubernetesClient client, String container) {
        return (namespace, pod) -> {
            try {
                return Optional.ofNullable(client.raw(client.getMasterUrl().toString().replaceAll("/$", "") + "/api/v1/namespaces/"
                        + namespace + "/pods/" + pod + "/log?container=" + container));
            } catch (KubernetesClientException e) {
                return Optional.empty();
            }
        };
    }
}
