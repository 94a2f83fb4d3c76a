package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.railyard.operator.model.KueueGroup;
import java.util.Collection;
import java.util.Map;

/**
 * Kueue keeps a pod group's quota, and its finalizer on the group's pods, while the group may still get replacement pods;
 * a group ends only once its pods are done and one says it is not retried. The operator says so of every pod of a run
 * it ends (a restart, a job that failed or was deleted) before it deletes them, so that Kueue lets them go and frees the
 * quota; the next run is a group of its own ({@link KueueGroup#name}).
 */
final class KueueGroups {
    static final String RETRIABLE_ANNOTATION = "kueue.x-k8s.io/retriable-in-group";
    private static final String NOT_RETRIED = "{\"metadata\":{\"annotations\":{\"" + RETRIABLE_ANNOTATION + "\":\"false\"}}}";

    private KueueGroups() {}

    /** Marks the pods of a Kueue pod group not retried; others, and those marked already, cost no request. */
    static void end(KubernetesClient client, Collection<Pod> pods) {
        for (Pod pod : pods) {
            Map<String, String> labels = pod.getMetadata().getLabels();
            Map<String, String> annotations = pod.getMetadata().getAnnotations();
            if (labels == null || !labels.containsKey(KueueGroup.LABEL)
                    || annotations != null && "false".equals(annotations.get(RETRIABLE_ANNOTATION))) {
                continue;
            }
            try {
                // the cached pod given: no GET before the patch, which the operator's role does not allow
                client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).patch(PatchContext.of(PatchType.JSON_MERGE), NOT_RETRIED);
            } catch (KubernetesClientException e) {
                if (e.getCode() != 404) { // gone already: nothing holds it
                    throw e;
                }
            }
        }
    }
}
