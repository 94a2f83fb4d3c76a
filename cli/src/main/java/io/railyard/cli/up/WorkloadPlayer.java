package io.railyard.cli.up;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.railyard.api.Names;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the containers of a sandbox's training pods would do, as KWOK cannot run them: each trainer's log, as
 * {@code pods/log} serves it, is a real NCCL log of the node's shape; after the run's length the pod's containers exit
 * 0 (KWOK stage {@code railyard-pod-exit}) and the pod Succeeds. Only pods on the sandbox's own nodes are played.
 */
public final class WorkloadPlayer {
    private static final Logger LOG = LoggerFactory.getLogger(WorkloadPlayer.class);
    static final String EXIT_CODE = "kwok.railyard.io/exit-code";
    private static final String TRAINER = "trainer";

    private final KubernetesClient admin;
    private final Sandbox sandbox;
    private final List<String> trainerLog;
    private final Duration runLength;
    private final Clock clock;
    /** Each played pod (by UID): when its trainer started, as this player first saw it Running. */
    private final Map<String, Instant> started = new HashMap<>();

    public WorkloadPlayer(KubernetesClient admin, Sandbox sandbox, Path trainerLog, Duration runLength, Clock clock) {
        this.admin = admin;
        this.sandbox = sandbox;
        this.runLength = runLength;
        this.clock = clock;
        try (Stream<String> lines = Files.lines(trainerLog, StandardCharsets.ISO_8859_1)) {
            this.trainerLog = lines.toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The real NCCL log a trainer on this shape writes (from {@code testdata/logs}, as pasted in a public thread): NCCL on
     * the shape's link layer, so that {@code RdmaVerified} is decided as on a real node of it.
     */
    public static Path trainerLogOf(Path home, String shape) {
        String log = shape.startsWith("roce") ? "nccl-roce-gdr-disabled-01.log" : "nccl-ib-gdr-ok-aks-01.log";
        return home.resolve("testdata/logs").resolve(log);
    }

    /** One look at the training pods: a log for each that started, the end of each whose run is over. */
    public void playOnce() {
        Set<String> nodes = admin.nodes().withLabel(SandboxNodes.SANDBOX_LABEL, "true").list().getItems().stream()
                .map(node -> node.getMetadata().getName()).collect(Collectors.toSet());
        List<Pod> pods = admin.pods().inAnyNamespace().withLabel(Names.JOB_LABEL).list().getItems();
        Set<String> present = pods.stream().map(pod -> pod.getMetadata().getUid()).collect(Collectors.toSet());
        started.keySet().retainAll(present);
        for (Pod pod : pods) {
            boolean running = pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase());
            if (!running || pod.getMetadata().getDeletionTimestamp() != null || !nodes.contains(pod.getSpec().getNodeName())
                    || pod.getSpec().getContainers().stream().noneMatch(c -> c.getName().equals(TRAINER))) {
                continue;
            }
            String uid = pod.getMetadata().getUid();
            if (!started.containsKey(uid)) {
                serveTrainerLog(pod);
                started.put(uid, clock.instant());
            } else if (!clock.instant().isBefore(started.get(uid).plus(runLength))
                    && (pod.getMetadata().getAnnotations() == null || !pod.getMetadata().getAnnotations().containsKey(EXIT_CODE))) {
                exit(pod);
            }
        }
    }

    /** KWOK serves the file's lines as the container's log; it reads the kubelet's CRI format, a time and a stream first. */
    private void serveTrainerLog(Pod pod) {
        String namespace = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        Path file = sandbox.podLogs().resolve(namespace + "_" + name + "_" + pod.getMetadata().getUid() + "_" + TRAINER + ".log");
        try {
            Files.createDirectories(file.getParent());
            String stamp = clock.instant().toString();
            Files.write(file, (Iterable<String>) trainerLog.stream().map(line -> stamp + " stdout F " + line)::iterator, StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        GenericKubernetesResource logs = new GenericKubernetesResourceBuilder().withApiVersion("kwok.x-k8s.io/v1alpha1").withKind("Logs")
                .withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
                .addToAdditionalProperties("spec", Map.of("logs", List.of(Map.of("containers", List.of(TRAINER),
                        "logsFile", file.toString(), "follow", false))))
                .build();
        admin.resource(logs).fieldManager(SandboxInstall.FIELD_MANAGER).forceConflicts().serverSideApply();
        LOG.info("pod {}/{} on {}: its trainer's log is served", namespace, name, pod.getSpec().getNodeName());
    }

    private void exit(Pod pod) {
        try {
            admin.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                    .edit(p -> !p.getMetadata().getUid().equals(pod.getMetadata().getUid()) ? p // another pod of that name since
                            : new PodBuilder(p).editMetadata().addToAnnotations(EXIT_CODE, "0").endMetadata().build());
            LOG.info("pod {}/{}: its run of {} s is over, its containers exit 0", pod.getMetadata().getNamespace(),
                    pod.getMetadata().getName(), runLength.toSeconds());
        } catch (KubernetesClientException e) {
            LOG.warn("pod {}/{}: could not end its run: {}", pod.getMetadata().getNamespace(), pod.getMetadata().getName(), e.getMessage());
        }
    }
}
