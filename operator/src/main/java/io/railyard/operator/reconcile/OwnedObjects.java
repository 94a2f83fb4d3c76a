package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.railyard.api.TrainingJob;
import io.railyard.operator.model.ChannelKey;
import io.railyard.operator.model.WorkloadGangModel;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The objects a job owns beside its pods, created when missing: those the operator's caches show (its Service, its
 * Volcano PodGroup, its claim template) as the caches say, and the job's channel key (a Secret), NetworkPolicy and
 * Kubernetes Workload and PodGroup once per job, never read back, because the operator may only create those. One that an earlier operator created is a conflict,
 * which is fine; the garbage collector deletes them all with the job (they carry its owner reference).
 */
final class OwnedObjects {
    private final Set<String> created = ConcurrentHashMap.newKeySet();

    /**
     * @param channelKey whether the job's pods seal their messages to each other: the key is created before them
     * @return what the API server left out of an object it stored (a field behind a gate that is off), which the job needs
     */
    Optional<String> ensure(Context<TrainingJob> context, TrainingJob job, List<HasMetadata> objects, boolean channelKey) {
        KubernetesClient client = context.getClient();
        if (channelKey) {
            once(client, job, "Secret", ChannelKey.secretName(job.getMetadata().getName()), () -> ChannelKey.secret(job));
        }
        Optional<String> dropped = Optional.empty();
        for (HasMetadata object : objects) {
            Boolean known = JobInformers.cached(context, object);
            if (object instanceof NetworkPolicy || object instanceof GenericKubernetesResource) { // the latter: Workload, PodGroup
                HasMetadata stored = once(client, job, object.getKind(), object.getMetadata().getName(), () -> object);
                dropped = dropped.or(() -> WorkloadGangModel.dropped(object, stored));
            } else if (known == null) {
                GangPods.ensure(client, object);
            } else if (!known) {
                GangPods.create(client, object);
            }
        }
        return dropped;
    }

    /**
     * Creates the object unless this operator created it (or found it) for this job already; made only when needed.
     * Returns what the API server stored, null when it was there already.
     */
    private HasMetadata once(KubernetesClient client, TrainingJob job, String kind, String name, Supplier<? extends HasMetadata> object) {
        String key = job.getMetadata().getUid() + "/" + kind + "/" + name;
        HasMetadata stored = null;
        if (!created.contains(key)) {
            stored = GangPods.create(client, object.get());
            created.add(key);
        }
        return stored;
    }

    void forget(TrainingJob job) {
        created.removeIf(key -> key.startsWith(job.getMetadata().getUid() + "/"));
    }
}
