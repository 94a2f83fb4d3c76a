package io.railyard.e2e;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.awaitility.Awaitility;

/** TrainingJobs as the tests write them, and what a user reads of them. */
final class Jobs {
    private Jobs() {}

    /** A job of {@code nodes} 8-GPU nodes with four RDMA devices each, placed by kube-scheduler on the nodes of a group. */
    static String yaml(String namespace, String name, int nodes, String group) {
        return yaml(namespace, name, nodes, group, "default");
    }

    /** The same, its gang placed by {@code scheduler} ({@code default}, {@code volcano}). */
    static String yaml(String namespace, String name, int nodes, String group, String scheduler) {
        return yaml(namespace, name, nodes, group, scheduler, null);
    }

    /** The same, in the scheduler's {@code queue} where one is named. */
    static String yaml(String namespace, String name, int nodes, String group, String scheduler, String queue) {
        String job = """
                apiVersion: railyard.io/v1alpha1
                kind: TrainingJob
                metadata:
                  name: %s
                  namespace: %s
                spec:
                  image: nvcr.io/nvidia/pytorch:24.10-py3
                  script: /workspace/train.py
                  nodes: %d
                  gpusPerNode: 8
                  rdma:
                    devicesPerNode: 4
                    socketInterface: eth0
                  scheduling:
                    scheduler: %s
                  runPolicy:
                    backoffLimit: 2
                  podTemplate:
                    nodeSelector:
                      %s: %s
                """.formatted(name, namespace, nodes, scheduler, KwokNodes.GROUP, group);
        return queue == null ? job : job.replace("    scheduler: " + scheduler + "\n", "    scheduler: " + scheduler + "\n    queue: " + queue + "\n");
    }

    /**
     * The job's pods once {@code ranks} of them run and none of those is being deleted; the API server may be away
     * meanwhile (a failed look is looked again).
     */
    /** The job with a topology request: the gang under one domain of {@code level}, Required or Preferred. */
    static String topology(String job, String level, String mode) {
        return job.replace("  scheduling:\n", "  scheduling:\n    topology: {level: " + level + ", mode: " + mode + "}\n");
    }

    static List<Pod> awaitRunning(KubernetesClient client, String namespace, String job, int ranks, Duration within) {
        return Awaitility.await(ranks + " pods of " + job + " Running").atMost(within).ignoreExceptions().until(() -> pods(client, namespace, job)
                .stream().filter(p -> "Running".equals(p.getStatus().getPhase()) && p.getMetadata().getDeletionTimestamp() == null).toList(),
                pods -> pods.size() == ranks);
    }

    /** How many of the job's pods are Running. */
    static long running(KubernetesClient client, String namespace, String job) {
        return pods(client, namespace, job).stream().filter(pod -> "Running".equals(pod.getStatus().getPhase())).count();
    }

    /** How many of these pods the scheduler has bound to a node. */
    static long bound(List<Pod> pods) {
        return pods.stream().filter(pod -> pod.getSpec().getNodeName() != null).count();
    }

    static List<Pod> pods(KubernetesClient client, String namespace, String job) {
        return client.pods().inNamespace(namespace).withLabel(Names.JOB_LABEL, job).list().getItems();
    }

    static Pod rankZero(KubernetesClient client, String namespace, String job) {
        return Awaitility.await("rank 0's pod of " + job).atMost(Duration.ofSeconds(60))
                .until(() -> pods(client, namespace, job).stream().filter(p -> "0".equals(p.getMetadata().getLabels().get(Names.RANK_LABEL)))
                        .findFirst(), Optional::isPresent).orElseThrow();
    }

    static TrainingJob get(KubernetesClient client, String namespace, String job) {
        return client.resources(TrainingJob.class).inNamespace(namespace).withName(job).get();
    }

    static Optional<Condition> condition(KubernetesClient client, String namespace, String job, String type) {
        TrainingJob current = get(client, namespace, job);
        if (current == null || current.getStatus() == null || current.getStatus().conditions == null) {
            return Optional.empty();
        }
        return current.getStatus().conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
    }
}
