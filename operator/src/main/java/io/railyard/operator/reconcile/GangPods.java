package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.volcano.api.model.scheduling.v1beta1.PodGroup;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The API requests that make and unmake a gang: its objects and pods created, a run's pods deleted, a node marked. */
final class GangPods {
    private static final Logger LOG = LoggerFactory.getLogger(GangPods.class);
    /** Pods created at once: enough to hide the round trips, few enough not to flood the API server. */
    private static final int CREATORS = 16;

    private GangPods() {}

    /** Pods of a run that was restarted (still in the cache, or left by an operator that stopped before it deleted them). */
    static void deleteEarlierRuns(KubernetesClient client, List<Pod> earlier) {
        deleteExactly(client, earlier.stream().filter(pod -> pod.getMetadata().getDeletionTimestamp() == null).toList());
    }

    /**
     * Deletes each of these pods only while it is the one given (a UID precondition), several at a time. Their names
     * wait for the new run's pods: a request by name or by label that reaches the API server late (a delete of a large
     * gang outlasts the client's timeout and is sent again, and the server's own deletion of a collection goes on by
     * name) would delete a new pod that took the name; this one is refused, and a pod already gone is fine.
     */
    static void deleteExactly(KubernetesClient client, List<Pod> pods) {
        if (pods.isEmpty()) {
            return;
        }
        String server = client.getMasterUrl().toString().replaceAll("/+$", "");
        try (ExecutorService deleters = Executors.newFixedThreadPool(Math.min(CREATORS, pods.size()),
                Thread.ofPlatform().name("railyard-delete-", 0).daemon().factory())) {
            for (Pod pod : pods) {
                String path = server + "/api/v1/namespaces/" + pod.getMetadata().getNamespace() + "/pods/" + pod.getMetadata().getName();
                Map<String, Object> options = Map.of("apiVersion", "v1", "kind", "DeleteOptions",
                        "preconditions", Map.of("uid", pod.getMetadata().getUid()));
                deleters.submit(() -> {
                    try {
                        client.raw(path, "DELETE", options);
                    } catch (KubernetesClientException e) {
                        if (e.getCode() != 409 && e.getCode() != 404) { // the name holds another pod now, or none
                            LOG.warn("cannot delete pod {}: {}", pod.getMetadata().getName(), e.getMessage());
                        }
                    }
                });
            }
        }
    }

    /** What a creation of pods left uncreated: those the API server refused ({@link Admission#refusal}), and names another pod holds. */
    record Uncreated(Map<String, KubernetesClientException> refused, Set<String> taken) {}

    /**
     * Creates the gang's missing pods, several at a time: a 1,024-node gang created one by one waits on a thousand
     * round trips. A name another pod holds (409: an earlier run's pod not gone yet) is left for a later reconcile.
     * Any error but a refusal or a taken name is thrown.
     */
    static Uncreated createAll(KubernetesClient client, List<Pod> pods) {
        Uncreated uncreated = new Uncreated(new java.util.concurrent.ConcurrentSkipListMap<>(), ConcurrentHashMap.newKeySet());
        if (pods.isEmpty()) {
            return uncreated;
        }
        try (ExecutorService creators = Executors.newFixedThreadPool(Math.min(CREATORS, pods.size()),
                Thread.ofPlatform().name("railyard-create-", 0).daemon().factory())) {
            List<Future<?>> created = pods.stream().map(pod -> creators.submit(() -> {
                try {
                    client.resource(pod).create();
                } catch (KubernetesClientException e) {
                    if (e.getCode() == 409) {
                        uncreated.taken().add(pod.getMetadata().getName());
                    } else if (Admission.refusal(e)) {
                        uncreated.refused().put(pod.getMetadata().getName(), e);
                    } else {
                        throw e;
                    }
                }
            })).collect(Collectors.toList());
            for (Future<?> future : created) {
                try {
                    future.get();
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while creating the gang's pods", e);
                }
            }
        }
        return uncreated;
    }

    /** @return the object as the API server stored it, null when it was there already */
    static HasMetadata create(KubernetesClient client, HasMetadata object) {
        try {
            return client.resource(object).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
            return null;
        }
    }

    /** Creates an object if it is missing; one another reconcile created meanwhile is fine. */
    static void ensure(KubernetesClient client, HasMetadata object) {
        if (client.resource(object).get() == null) {
            create(client, object);
        }
    }

    /**
     * Moves running pods to a new attempt of the gang, one merge patch each, in the order given: the attempt label (the
     * pod's restart-watch sidecar sees it through the downward API and restarts the pod in place) and the trainer's
     * restart count once it runs that attempt. Several at a time, as pods are created.
     */
    static void moveToAttempt(KubernetesClient client, String namespace, List<Pod> pods, String attempt) {
        if (pods.isEmpty()) {
            return;
        }
        try (ExecutorService patchers = Executors.newFixedThreadPool(Math.min(CREATORS, pods.size()),
                Thread.ofPlatform().name("railyard-restart-", 0).daemon().factory())) {
            for (Pod pod : pods) {
                String patch = Serialization.asJson(Map.of("metadata", Map.of(
                        "labels", Map.of(Names.ATTEMPT_LABEL, attempt),
                        "annotations", Map.of(Names.RESTART_BASE_ANNOTATION, String.valueOf(io.railyard.operator.model.TrainerRestarts.nextBase(pod))))));
                patchers.submit(() -> {
                    try {
                        // through the cached pod: by name alone the client would read the pod first, a request more each
                        client.pods().inNamespace(namespace).resource(pod).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
                    } catch (KubernetesClientException e) {
                        if (e.getCode() != 404) { // a pod gone meanwhile is created again as a missing one
                            LOG.warn("cannot move pod {} to attempt {}: {}", pod.getMetadata().getName(), attempt, e.getMessage());
                        }
                    }
                });
            }
        }
    }

    static void deletePods(KubernetesClient client, TrainingJob job) {
        client.pods().inNamespace(job.getMetadata().getNamespace()).withLabel(Names.JOB_LABEL, job.getMetadata().getName()).delete();
    }

    /**
     * The job's Service, PodGroup and claim template, found by the job's label rather than by what its spec would build
     * (a job that failed validation builds nothing), each deleted by name: the operator's RBAC has list and delete on
     * them, not deletecollection. A kind the cluster does not serve has nothing to delete.
     */
    static void deleteOwned(KubernetesClient client, TrainingJob job) {
        for (Class<? extends HasMetadata> kind : List.<Class<? extends HasMetadata>>of(Service.class, PodGroup.class, ResourceClaimTemplate.class)) {
            try {
                client.resources(kind).inNamespace(job.getMetadata().getNamespace()).withLabel(Names.JOB_LABEL, job.getMetadata().getName())
                        .list().getItems().forEach(owned -> client.resource(owned).delete());
            } catch (KubernetesClientException e) {
                if (e.getCode() != 404) {
                    throw e;
                }
            }
        }
    }

    /**
     * Takes the operator's finalizer off a deleted job with one merge patch, so that the job goes. Done here rather than
     * by the SDK, which reads the job back from the answer: an API server that has just removed the job may send none.
     */
    static void releaseFinalizer(KubernetesClient client, TrainingJob job, String finalizer) {
        List<String> others = job.getMetadata().getFinalizers() == null ? List.of()
                : job.getMetadata().getFinalizers().stream().filter(f -> !f.equals(finalizer)).toList();
        Map<String, Object> metadata = new java.util.HashMap<>();
        metadata.put("finalizers", others.isEmpty() ? null : others);
        try {
            client.resources(TrainingJob.class).inNamespace(job.getMetadata().getNamespace()).withName(job.getMetadata().getName())
                    .patch(PatchContext.of(PatchType.JSON_MERGE), Serialization.asJson(Map.of("metadata", metadata)));
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
        }
    }

    /** The node the preflight gate blames keeps the mark after the job is gone: `kubectl get nodes -l railyard.io/preflight=failed`. */
    static void markFailed(KubernetesClient client, String node) {
        try {
            client.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE),
                    Serialization.asJson(Map.of("metadata", Map.of("labels", Map.of(Names.PREFLIGHT_LABEL, "failed")))));
        } catch (KubernetesClientException e) {
            LOG.warn("cannot label node {} {}=failed: {}", node, Names.PREFLIGHT_LABEL, e.getMessage());
        }
    }
}
