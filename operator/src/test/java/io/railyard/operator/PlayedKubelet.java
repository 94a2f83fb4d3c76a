package io.railyard.operator;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.railyard.api.Names;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

/**
 * The kubelets of KEP-5532's in-place restart, played on the mock API server beside {@link PlayedScheduler}: a pod placed
 * and running gets a running trainer; a pod whose attempt label moves past the attempt its trainer runs, while the
 * trainer runs, is restarted in place as its restart-watch sidecar's exit would make the kubelet do (UID and node kept,
 * {@code AllContainersRestarting} set then cleared, every container's restart count raised, the old run's end in the
 * trainer's lastState); {@link #failTrainer} is the trainer's own non-zero exit, after which the pod waits in await-rank
 * for a newer attempt and then runs it without another restart.
 */
public final class PlayedKubelet implements AutoCloseable {
    /** What the pod's emptyDir keeps across its in-place restarts: the attempt its trainer runs, and whether it waits. */
    private record Local(long attempt, boolean waiting) {}

    private final KubernetesClient client;
    private final String namespace;
    private final Clock clock;
    private final Map<String, Local> pods = new ConcurrentHashMap<>();
    private final List<String> restartsInPlace = new CopyOnWriteArrayList<>();
    private final Thread loop;
    private volatile boolean running = true;

    public PlayedKubelet(KubernetesClient client, String namespace, Clock clock) {
        this.client = client;
        this.namespace = namespace;
        this.clock = clock;
        this.loop = Thread.ofPlatform().daemon().name("played-kubelet").start(this::run);
    }

    /** The pods restarted in place so far, by name, as "pod@attempt", oldest first. */
    public List<String> restartsInPlace() {
        return List.copyOf(restartsInPlace);
    }

    /** The trainer of a running pod exits with this code: its rule restarts the pod in place, and await-rank holds it. */
    public void failTrainer(String pod, int exitCode) {
        Pod current = client.pods().inNamespace(namespace).withName(pod).get();
        pods.put(current.getMetadata().getUid(), new Local(pods.get(current.getMetadata().getUid()).attempt(), true));
        restart(current, exitCode, "Error", false);
    }

    private void run() {
        while (running) {
            try {
                client.pods().inNamespace(namespace).list().getItems().forEach(this::sync);
            } catch (KubernetesClientException e) {
                // a pod deleted under us, or the server stopping: the next round sees what is left
            }
            LockSupport.parkNanos(50_000_000);
        }
    }

    private void sync(Pod pod) {
        if (pod.getSpec().getNodeName() == null || pod.getStatus() == null || !"Running".equals(pod.getStatus().getPhase())
                || pod.getMetadata().getDeletionTimestamp() != null || !pod.getMetadata().getLabels().containsKey(Names.ATTEMPT_LABEL)) {
            return; // a spare waits in await-rank until it is given an attempt: its trainer has not run
        }
        String uid = pod.getMetadata().getUid();
        long attempt = Long.parseLong(pod.getMetadata().getLabels().get(Names.ATTEMPT_LABEL));
        Local local = pods.get(uid);
        if (local == null) {
            pods.put(uid, new Local(attempt, false));
            update(pod, statuses -> statuses.add(trainer(0, clock.instant().toString())), null);
        } else if (attempt > local.attempt() && local.waiting()) { // await-rank lets the new attempt through
            pods.put(uid, new Local(attempt, false));
            update(pod, statuses -> statuses.replaceAll(s -> new ContainerStatusBuilder(s).withNewState().withNewRunning()
                    .withStartedAt(clock.instant().toString()).endRunning().endState().withReady(true).build()), null);
        } else if (attempt > local.attempt() && inPlace(pod)) { // restart-watch exits 86
            pods.put(uid, new Local(attempt, false));
            restartsInPlace.add(pod.getMetadata().getName() + "@" + attempt);
            restart(pod, 137, "Error", true);
        }
    }

    /** Every container restarts: the condition set, then the counts raised and the condition cleared. */
    private void restart(Pod pod, int exitCode, String reason, boolean runsAgain) {
        String container = runsAgain ? "restart-watch" : "trainer";
        int code = runsAgain ? 86 : exitCode;
        update(pod, statuses -> { }, condition("True", container, code));
        Pod now = client.pods().inNamespace(namespace).withName(pod.getMetadata().getName()).get();
        update(now, statuses -> statuses.replaceAll(s -> {
            ContainerStatusBuilder restarted = new ContainerStatusBuilder(s).withRestartCount(s.getRestartCount() + 1)
                    .withNewLastState().withNewTerminated().withExitCode(exitCode).withReason(reason)
                    .withFinishedAt(clock.instant().toString()).endTerminated().endLastState();
            return (runsAgain ? restarted.withNewState().withNewRunning().withStartedAt(clock.instant().toString()).endRunning().endState()
                    : restarted.withNewState().withNewWaiting().withReason("PodInitializing").endWaiting().endState().withReady(false)).build();
        }), condition("False", container, code));
    }

    private static boolean inPlace(Pod pod) {
        return pod.getSpec().getInitContainers().stream().anyMatch(c -> c.getName().equals("restart-watch"));
    }

    private static ContainerStatus trainer(int restarts, String startedAt) {
        return new ContainerStatusBuilder().withName("trainer").withRestartCount(restarts).withReady(true).withNewState().withNewRunning()
                .withStartedAt(startedAt).endRunning().endState().build();
    }

    private PodCondition condition(String status, String container, int code) {
        return new PodConditionBuilder().withType("AllContainersRestarting").withStatus(status).withReason("ContainerExited")
                .withMessage("Container " + container + " exited with code " + code + ", triggering pod restart")
                .withLastTransitionTime(clock.instant().toString()).build();
    }

    private void update(Pod pod, java.util.function.Consumer<List<ContainerStatus>> change, PodCondition condition) {
        client.pods().inNamespace(namespace).withName(pod.getMetadata().getName()).edit(p -> {
            Pod edited = new PodBuilder(p).build();
            List<ContainerStatus> statuses = new ArrayList<>(edited.getStatus().getContainerStatuses() == null ? List.of()
                    : edited.getStatus().getContainerStatuses());
            change.accept(statuses);
            if (statuses.stream().noneMatch(s -> s.getName().equals("trainer"))) {
                statuses.add(trainer(0, clock.instant().toString()));
            }
            edited.getStatus().setContainerStatuses(statuses);
            if (condition != null) {
                List<PodCondition> conditions = new ArrayList<>(edited.getStatus().getConditions() == null ? List.of() : edited.getStatus().getConditions());
                conditions.removeIf(c -> c.getType().equals(condition.getType()));
                conditions.add(condition);
                edited.getStatus().setConditions(conditions);
            }
            return edited;
        });
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        loop.join();
    }
}
