package io.railyard.operator;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.railyard.api.Names;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.LockSupport;

/**
 * The scheduler and kubelets a CRUD mock API server lacks, played: each pod without a node is bound to the first node
 * (by name) that its node selector and required node affinity select, whose NoSchedule and NoExecute taints it tolerates, and that holds
 * no other pod of its job; then it runs, with the node's address as its own (the host network).
 */
public final class PlayedScheduler implements AutoCloseable {
    /** A pod bound to a node. */
    public record Binding(String pod, String uid, String attempt, String node) {}

    private final KubernetesClient client;
    private final String namespace;
    private final List<Binding> bindings = new CopyOnWriteArrayList<>();
    private final Thread loop;
    private volatile boolean running = true;

    public PlayedScheduler(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
        this.loop = Thread.ofPlatform().daemon().name("played-scheduler").start(this::run);
    }

    /** Every binding so far, oldest first. */
    public List<Binding> bindings() {
        return List.copyOf(bindings);
    }

    private void run() {
        while (running) {
            long pause = 50;
            try {
                pause = scheduleOnce();
            } catch (KubernetesClientException e) {
                // a pod deleted under us, or the server stopping: the next round sees what is left
            }
            LockSupport.parkNanos(pause * 1_000_000);
        }
    }

    /** One round; returns the milliseconds to wait before the next: longer after a round of thousands of pods that bound none. */
    private long scheduleOnce() {
        List<Pod> pods = client.pods().inNamespace(namespace).list().getItems();
        List<Node> nodes = client.nodes().list().getItems().stream().sorted(Comparator.comparing(n -> n.getMetadata().getName())).toList();
        Map<String, Set<String>> jobsOnNode = new HashMap<>();
        for (Pod pod : pods) {
            if (pod.getSpec().getNodeName() != null && !finished(pod)) {
                jobsOnNode.computeIfAbsent(pod.getSpec().getNodeName(), n -> new HashSet<>()).add(job(pod));
            }
        }
        Map<String, Map<String, String>> nodeLabels = new HashMap<>();
        // where each job's next pod starts looking this round: a gang's pods share their placement rules, so the nodes
        // before the one its last pod took are held by the job or refused to it (12,500 pods passed 78 million nodes)
        Map<List<Object>, Integer> searchFrom = new HashMap<>();
        List<Runnable> binds = new ArrayList<>();
        for (Pod pod : pods) {
            if (pod.getSpec().getNodeName() != null || pod.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            List<Object> rules = placement(pod);
            for (int i = searchFrom.getOrDefault(rules, 0); i < nodes.size(); i++) {
                Node node = nodes.get(i);
                String name = node.getMetadata().getName();
                if (!jobsOnNode.getOrDefault(name, Set.of()).contains(job(pod)) && selects(pod, nodeLabels.computeIfAbsent(name, n -> labels(node)))
                        && tolerates(pod, node)) {
                    binds.add(() -> bind(pod, node));
                    jobsOnNode.computeIfAbsent(name, n -> new HashSet<>()).add(job(pod));
                    searchFrom.put(rules, i + 1);
                    break;
                }
            }
        }
        if (binds.size() <= PARALLEL_FROM) {
            binds.forEach(Runnable::run);
        } else { // a gang of thousands is bound in seconds, as a scheduler's binding workers do, not one pod after another
            try (ExecutorService binders = Executors.newFixedThreadPool(16)) {
                binds.forEach(bind -> binders.submit(() -> {
                    try {
                        bind.run();
                    } catch (KubernetesClientException e) {
                        // a pod deleted under us: the next round sees what is left
                    }
                }));
            }
        }
        // each round lists every pod and node: at 12,500 nodes that is a core's work the operator under test should have
        return binds.isEmpty() ? Math.max(50, pods.size() / 50) : 50;
    }

    /** Rounds with more pods to bind than this bind them from several threads; smaller ones in order, as the tests expect. */
    private static final int PARALLEL_FROM = 64;

    private void bind(Pod pod, Node node) {
        String address = node.getStatus() == null || node.getStatus().getAddresses() == null || node.getStatus().getAddresses().isEmpty()
                ? null : node.getStatus().getAddresses().getFirst().getAddress();
        // one merge patch, as a scheduler's binding and a kubelet's status are one request each (an edit is a GET and a PUT)
        Map<String, Object> status = new HashMap<>(Map.of("phase", "Running"));
        status.put("podIP", address);
        status.put("hostIP", address);
        client.pods().inNamespace(namespace).withName(pod.getMetadata().getName()).patch(PatchContext.of(PatchType.JSON_MERGE),
                Serialization.asJson(Map.of("spec", Map.of("nodeName", node.getMetadata().getName()), "status", status)));
        bindings.add(new Binding(pod.getMetadata().getName(), pod.getMetadata().getUid(),
                pod.getMetadata().getLabels().get(Names.ATTEMPT_LABEL), node.getMetadata().getName()));
    }

    /**
     * The node selector, and the required node affinity's terms (any one), each with all its expressions;
     * kubernetes.io/hostname as the node's name.
     */
    private static boolean selects(Pod pod, Map<String, String> labels) {
        Map<String, String> selector = pod.getSpec().getNodeSelector() == null ? Map.of() : pod.getSpec().getNodeSelector();
        if (!selector.entrySet().stream().allMatch(entry -> entry.getValue().equals(labels.get(entry.getKey())))) {
            return false;
        }
        var affinity = pod.getSpec().getAffinity();
        if (affinity == null || affinity.getNodeAffinity() == null || affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
            return true;
        }
        for (NodeSelectorTerm term : affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms()) {
            if (term.getMatchExpressions().stream().allMatch(expression -> matches(expression, labels))) {
                return true;
            }
        }
        return false;
    }

    /** A node's labels, with kubernetes.io/hostname as its name. */
    private static Map<String, String> labels(Node node) {
        Map<String, String> labels = new HashMap<>(node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels());
        labels.putIfAbsent("kubernetes.io/hostname", node.getMetadata().getName());
        return labels;
    }

    private static boolean matches(NodeSelectorRequirement expression, Map<String, String> labels) {
        String value = labels.get(expression.getKey());
        return switch (expression.getOperator()) {
            case "In" -> value != null && expression.getValues().contains(value);
            case "NotIn" -> value == null || !expression.getValues().contains(value);
            case "Exists" -> value != null;
            case "DoesNotExist" -> value == null;
            default -> throw new IllegalArgumentException("the played scheduler does not know operator " + expression.getOperator());
        };
    }

    private static boolean tolerates(Pod pod, Node node) {
        List<Taint> taints = node.getSpec() == null || node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints();
        List<Toleration> tolerations = pod.getSpec().getTolerations() == null ? List.of() : pod.getSpec().getTolerations();
        return taints.stream().filter(taint -> !"PreferNoSchedule".equals(taint.getEffect())).allMatch(taint -> tolerations.stream()
                .anyMatch(t -> (t.getKey() == null ? "Exists".equals(t.getOperator()) : t.getKey().equals(taint.getKey()))
                        && (t.getEffect() == null || t.getEffect().equals(taint.getEffect()))));
    }

    /** A pod's job and what decides where it may go: pods alike in these share where they start looking. */
    private static List<Object> placement(Pod pod) {
        return java.util.Arrays.asList(job(pod), pod.getSpec().getNodeSelector(), pod.getSpec().getAffinity() == null ? null
                : pod.getSpec().getAffinity().getNodeAffinity(), pod.getSpec().getTolerations());
    }

    private static boolean finished(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    private static String job(Pod pod) {
        return pod.getMetadata().getLabels() == null ? "" : String.valueOf(pod.getMetadata().getLabels().get(Names.JOB_LABEL));
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        loop.join();
    }
}
