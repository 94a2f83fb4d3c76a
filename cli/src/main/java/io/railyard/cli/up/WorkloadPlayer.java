package io.railyard.cli.up;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.railyard.api.Names;
import io.railyard.operator.preflight.PreflightPods;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the containers of a sandbox's training pods would do, as KWOK cannot run them: a preflight gate's helper runs
 * on the node's tree and its result goes to the pod (KWOK stage {@code railyard-pod-preflight} starts the pod, or fails
 * it, with those figures); each trainer's log, as {@code pods/log} serves it, is a real NCCL log of the node's shape;
 * after the run's length the pod's containers exit 0 (KWOK stage {@code railyard-pod-exit}) and the pod Succeeds. Only
 * pods on the sandbox's own nodes are played.
 */
public final class WorkloadPlayer {
    private static final Logger LOG = LoggerFactory.getLogger(WorkloadPlayer.class);
    static final String EXIT_CODE = "kwok.railyard.io/exit-code";
    /** The gate's result, which KWOK stage railyard-pod-preflight writes into the init container's status. */
    static final String PREFLIGHT_EXIT_CODE = "kwok.railyard.io/preflight-exit-code";
    static final String PREFLIGHT_MESSAGE = "kwok.railyard.io/preflight-message";
    private static final String TRAINER = "trainer";

    private final KubernetesClient admin;
    private final Sandbox sandbox;
    private final PreflightHelper preflight;
    private final List<String> trainerLog;
    private final Duration runLength;
    private final Clock clock;
    /** Each played pod (by UID): when its trainer started, as this player first saw it Running. */
    private final Map<String, Instant> started = new HashMap<>();

    public WorkloadPlayer(KubernetesClient admin, Sandbox sandbox, PreflightHelper preflight, Path trainerLog, Duration runLength, Clock clock) {
        this.admin = admin;
        this.sandbox = sandbox;
        this.preflight = preflight;
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

    /** One look at the training pods: the gate of each placed, a log for each that started, the end of each whose run is over. */
    public void playOnce() {
        Set<String> nodes = admin.nodes().withLabel(SandboxNodes.SANDBOX_LABEL, "true").list().getItems().stream()
                .map(node -> node.getMetadata().getName()).collect(Collectors.toSet());
        List<Pod> pods = admin.pods().inAnyNamespace().withLabel(Names.JOB_LABEL).list().getItems();
        Set<String> present = pods.stream().map(pod -> pod.getMetadata().getUid()).collect(Collectors.toSet());
        started.keySet().retainAll(present);
        for (Pod pod : pods) {
            if (gateToPlay(pod, nodes)) {
                playPreflight(pod);
                continue;
            }
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

    /** A pod placed on a sandbox node, not started, whose preflight gate has no result yet. */
    private static boolean gateToPlay(Pod pod, Set<String> nodes) {
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        return pod.getStatus() != null && "Pending".equals(pod.getStatus().getPhase()) && pod.getMetadata().getDeletionTimestamp() == null
                && nodes.contains(pod.getSpec().getNodeName()) && gate(pod).isPresent()
                && (annotations == null || !annotations.containsKey(PREFLIGHT_EXIT_CODE));
    }

    private static Optional<Container> gate(Pod pod) {
        return pod.getSpec().getInitContainers().stream().filter(c -> c.getName().equals(PreflightPods.CONTAINER)).findFirst();
    }

    /** The gate's helper on the node's tree with the pod's own arguments; its figures go to the pod, its output to the log. */
    private void playPreflight(Pod pod) {
        Container gate = gate(pod).orElseThrow();
        int devices = gate.getResources() == null || gate.getResources().getLimits() == null ? 0
                : gate.getResources().getLimits().entrySet().stream().filter(limit -> limit.getKey().startsWith("rdma/"))
                        .mapToInt(limit -> limit.getValue().getNumericalAmount().intValue()).sum();
        Path root = sandbox.nodeRoot(pod.getSpec().getNodeName());
        PreflightHelper.Outcome outcome = preflight.run(gate.getArgs(), root, devices > 0 ? devices : Integer.MAX_VALUE);
        serveLog(pod, PreflightPods.CONTAINER, outcome.log().lines().toList());
        try {
            admin.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                    .edit(p -> !p.getMetadata().getUid().equals(pod.getMetadata().getUid()) ? p
                            : new PodBuilder(p).editMetadata().addToAnnotations(PREFLIGHT_EXIT_CODE, String.valueOf(outcome.exitCode()))
                                    .addToAnnotations(PREFLIGHT_MESSAGE, outcome.message()).endMetadata().build());
            LOG.info("pod {}/{} on {}: its preflight gate exits {}", pod.getMetadata().getNamespace(), pod.getMetadata().getName(),
                    pod.getSpec().getNodeName(), outcome.exitCode());
        } catch (KubernetesClientException e) {
            LOG.warn("pod {}/{}: could not hand its preflight's result over: {}", pod.getMetadata().getNamespace(), pod.getMetadata().getName(),
                    e.getMessage());
        }
    }

    private void serveTrainerLog(Pod pod) {
        serveLog(pod, TRAINER, trainerLog);
        LOG.info("pod {}/{} on {}: its trainer's log is served", pod.getMetadata().getNamespace(), pod.getMetadata().getName(),
                pod.getSpec().getNodeName());
    }

    /**
     * KWOK serves a file's lines as a container's log; it reads the kubelet's CRI format, a time and a stream first. The
     * pod's one Logs object lists every container's file written so far.
     */
    private void serveLog(Pod pod, String container, List<String> lines) {
        String namespace = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        String prefix = namespace + "_" + name + "_" + pod.getMetadata().getUid() + "_";
        List<Map<String, Object>> entries = new ArrayList<>();
        try {
            Files.createDirectories(sandbox.podLogs());
            String stamp = clock.instant().toString();
            Files.write(sandbox.podLogs().resolve(prefix + container + ".log"),
                    (Iterable<String>) lines.stream().map(line -> stamp + " stdout F " + line)::iterator, StandardCharsets.ISO_8859_1);
            for (String played : List.of(PreflightPods.CONTAINER, TRAINER)) { // the containers this player writes logs for
                Path file = sandbox.podLogs().resolve(prefix + played + ".log");
                if (Files.exists(file)) {
                    entries.add(Map.of("containers", List.of(played), "logsFile", file.toString(), "follow", false));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        GenericKubernetesResource logs = new GenericKubernetesResourceBuilder().withApiVersion("kwok.x-k8s.io/v1alpha1").withKind("Logs")
                .withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
                .addToAdditionalProperties("spec", Map.of("logs", entries))
                .build();
        admin.resource(logs).fieldManager(SandboxInstall.FIELD_MANAGER).forceConflicts().serverSideApply();
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
