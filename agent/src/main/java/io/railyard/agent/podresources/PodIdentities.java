package io.railyard.agent.podresources;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.railyard.api.Names;
import java.util.Map;

/**
 * The TrainingJob and node rank of the pods on this node, from the labels the operator sets, kept by one watch of
 * the node's pods (the kubelet lists pods by name only). A pod the operator did not make has empty values.
 */
public final class PodIdentities implements AutoCloseable {
    /** The job a pod belongs to and its rank, each empty when the pod has no such label. */
    public record Identity(String trainingJob, String rank) {
        public static final Identity NONE = new Identity("", "");
    }

    private final SharedIndexInformer<Pod> pods;
    private volatile Runnable onChange = () -> {};

    private PodIdentities(SharedIndexInformer<Pod> pods) {
        this.pods = pods;
        pods.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                onChange.run();
            }

            @Override
            public void onUpdate(Pod before, Pod after) {
                onChange.run();
            }

            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown) {
                onChange.run();
            }
        });
    }

    /** Called on every change to a pod of the node: a pod that started or ended holds or frees its ports. */
    public void onChange(Runnable listener) {
        this.onChange = listener;
    }

    /** Watches the pods bound to {@code node}; the first listing arrives in the background. */
    public static PodIdentities watch(KubernetesClient client, String node) {
        return watching(client.pods().inAnyNamespace().withField("spec.nodeName", node));
    }

    /** Watches the given pods (tests: the CRUD mock API server cannot select pods by {@code spec.nodeName}). */
    static PodIdentities watching(Informable<Pod> source) {
        PodIdentities identities = new PodIdentities(source.runnableInformer(0));
        identities.pods.start(); // retries in the background while the API cannot be reached; pods meanwhile have empty values
        return identities;
    }

    public Identity of(String namespace, String pod) {
        Pod found = pods.getStore().getByKey(namespace + "/" + pod);
        Map<String, String> labels = found == null ? null : found.getMetadata().getLabels();
        if (labels == null) {
            return Identity.NONE;
        }
        return new Identity(labels.getOrDefault(Names.JOB_LABEL, ""), labels.getOrDefault(Names.RANK_LABEL, ""));
    }

    @Override
    public void close() {
        pods.close();
    }
}
