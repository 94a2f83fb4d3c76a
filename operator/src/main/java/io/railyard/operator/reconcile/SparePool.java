package io.railyard.operator.reconcile;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.api.TrainingJobStatus;
import io.railyard.operator.model.NodeFaults;
import io.railyard.operator.model.OperatorDefaults;
import io.railyard.operator.model.SparePods;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * A running gang's hot spares on the cluster: created once the gang runs (they never hold its start back), refilled
 * after use, replaced when their node turns bad (the node excluded, as a blamed one is), deleted when the gang ends,
 * and promoted into the place of a pod on a blamed node when the gang restarts in place.
 */
final class SparePool {
    private SparePool() {}

    /**
     * Keeps the pool and says how it stands.
     *
     * @param job the job as its next pods are built (with its status's exclusions)
     * @param taken the names every pod of the job holds, spares included
     * @param phase the gang's: spares are created only while it runs, and deleted once it succeeded
     */
    static TrainingJobStatus.Spares keep(KubernetesClient client, TrainingJob job, OperatorDefaults defaults, List<Pod> spares, Set<String> taken,
            String phase, Function<String, Optional<Node>> nodes, Instant now) {
        TrainingJobStatus status = job.getStatus();
        boolean running = "Running".equals(phase);
        int desired = "Succeeded".equals(phase) ? 0 : SparePods.desired(job, defaults);
        List<Pod> live = new ArrayList<>();
        for (Pod spare : spares) {
            if (spare.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            Optional<NodeFaults.Fault> fault = node(spare).flatMap(nodes).flatMap(NodeFaults::of);
            if (fault.isPresent()) { // never promoted: replaced, and its node avoided like a blamed one
                exclude(status, fault.get(), now);
                delete(client, spare);
            } else {
                live.add(spare);
            }
        }
        if (running && live.size() < desired) {
            GangPods.createAll(client, SparePods.missing(job, defaults, taken, desired - live.size()));
        }
        live.stream().skip(desired).forEach(extra -> delete(client, extra)); // spareNodes lowered, or the gang done
        TrainingJobStatus.Spares pool = new TrainingJobStatus.Spares();
        pool.desired = desired;
        pool.ready = (int) live.stream().limit(desired).filter(SparePool::ready).count();
        return pool;
    }

    /**
     * Which ready spare takes the place of which replaced pod: each but rank 0's (its address is the gang's rendezvous),
     * while spares on nodes not excluded last.
     */
    static Map<Pod, Pod> pairs(List<Pod> replaced, List<Pod> spares, Set<String> excluded) {
        Iterator<Pod> candidates = spares.stream().filter(SparePool::ready).filter(spare -> !excluded.contains(node(spare).orElse("")))
                .sorted(Comparator.comparing(spare -> spare.getMetadata().getName())).iterator();
        Map<Pod, Pod> pairs = new LinkedHashMap<>();
        for (Pod pod : replaced) {
            if (index(pod) != 0 && candidates.hasNext()) {
                pairs.put(pod, candidates.next());
            }
        }
        return pairs;
    }

    /** Promotes each spare into its replaced pod's place of the new attempt, one patch each. */
    static void promote(KubernetesClient client, TrainingJob job, OperatorDefaults defaults, Map<Pod, Pod> pairs, int attempt) {
        pairs.forEach((replaced, spare) -> client.pods().inNamespace(job.getMetadata().getNamespace()).resource(spare)
                .patch(PatchContext.of(PatchType.JSON_MERGE), SparePods.promotion(job, defaults, index(replaced), attempt)));
    }

    private static int index(Pod pod) {
        return Integer.parseInt(pod.getMetadata().getLabels().get(Names.INDEX_LABEL));
    }

    /** A spare placed on a node, waiting: its node and devices are held. */
    static boolean ready(Pod spare) {
        String phase = spare.getStatus() == null ? null : spare.getStatus().getPhase();
        return node(spare).isPresent() && spare.getMetadata().getDeletionTimestamp() == null
                && !"Failed".equals(phase) && !"Succeeded".equals(phase) && !"Unknown".equals(phase);
    }

    private static Optional<String> node(Pod pod) {
        return Optional.ofNullable(pod.getSpec() == null ? null : pod.getSpec().getNodeName());
    }

    private static void exclude(TrainingJobStatus status, NodeFaults.Fault fault, Instant now) {
        List<TrainingJobStatus.ExcludedNode> excluded = new ArrayList<>(status.excludedNodes == null ? List.of() : status.excludedNodes);
        if (excluded.stream().noneMatch(e -> e.node.equals(fault.node()))) {
            TrainingJobStatus.ExcludedNode entry = new TrainingJobStatus.ExcludedNode();
            entry.node = fault.node();
            entry.reason = fault.reason();
            entry.since = now.truncatedTo(ChronoUnit.SECONDS).toString();
            excluded.add(entry);
            status.excludedNodes = excluded;
        }
    }

    private static void delete(KubernetesClient client, Pod pod) {
        client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName()).delete();
    }
}
