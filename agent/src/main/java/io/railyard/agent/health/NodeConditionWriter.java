package io.railyard.agent.health;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the agent's four conditions to its Node, and nothing else of the Node's: a strategic merge patch of
 * {@code nodes/status} keyed by condition type, as the kubelet and Node Problem Detector write theirs, so that
 * {@code Ready} and every other owner's conditions stay as they are. Writes when a condition changed, else every 30
 * minutes as a heartbeat; an Event per transition; the taint {@code railyard.io/rdma-unhealthy} when enabled. What
 * the API server could not take is kept and written on the next call.
 */
public final class NodeConditionWriter {
    public static final String TAINT_KEY = io.railyard.api.Names.RDMA_UNHEALTHY_TAINT;
    /** Two heartbeats an hour: 1,000 steady nodes write about 0.6 times a second in all (every 5 minutes would be 3.3). */
    static final Duration HEARTBEAT = Duration.ofMinutes(30);
    private static final Logger LOG = LoggerFactory.getLogger(NodeConditionWriter.class);

    private final KubernetesClient client;
    private final String nodeName;
    private final NodeHealthConfig.Taint taint;
    private final Deque<NodeCondition> events = new ArrayDeque<>();
    private List<NodeCondition> written;
    private Instant heartbeat = Instant.EPOCH;
    private String writtenTaint;
    private boolean taintSynced;
    private boolean failing;

    public NodeConditionWriter(KubernetesClient client, String nodeName, NodeHealthConfig.Taint taint) {
        this.client = client;
        this.nodeName = nodeName;
        this.taint = taint;
    }

    /** Brings the Node up to date; returns whether the API server has it all. */
    public boolean write(Instant now, List<NodeCondition> conditions, List<NodeCondition> transitions) {
        events.addAll(transitions);
        try {
            if (!conditions.equals(written) || !now.isBefore(heartbeat.plus(HEARTBEAT))) {
                client.nodes().withName(nodeName).subresource("status").patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch(conditions, now));
                written = conditions;
                heartbeat = now;
            }
            if (taint.enabled()) {
                syncTaint(conditions);
            }
            while (!events.isEmpty()) {
                event(events.peekFirst(), now);
                events.removeFirst();
            }
            if (failing) {
                LOG.info("node {}: RDMA conditions written again", nodeName);
                failing = false;
            }
            return true;
        } catch (KubernetesClientException e) {
            if (!failing) {
                LOG.warn("node {}: cannot write the RDMA conditions ({}); kept, and written when the API server answers", nodeName,
                        String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
                failing = true;
            }
            return false;
        }
    }

    /** The body of the patch: only the agent's own four condition types, merged by type on the server. */
    static String patch(List<NodeCondition> conditions, Instant now) {
        List<Map<String, Object>> list = new ArrayList<>();
        for (NodeCondition condition : conditions) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("type", condition.type().name());
            entry.put("status", condition.status() ? "True" : "False");
            entry.put("reason", condition.reason());
            entry.put("message", condition.message());
            entry.put("lastTransitionTime", condition.lastTransitionTime().truncatedTo(ChronoUnit.SECONDS).toString());
            entry.put("lastHeartbeatTime", now.truncatedTo(ChronoUnit.SECONDS).toString());
            list.add(entry);
        }
        return Serialization.asJson(Map.of("status", Map.of("conditions", list)));
    }

    /** Adds or removes the agent's own taint; another owner's taints are left as they are. */
    private void syncTaint(List<NodeCondition> conditions) {
        String value = conditions.stream().filter(NodeCondition::status).map(c -> c.type().name()).findFirst().orElse(null);
        if (taintSynced && Objects.equals(value, writtenTaint)) {
            return;
        }
        Node node = client.nodes().withName(nodeName).get();
        if (node == null) {
            throw new KubernetesClientException("node " + nodeName + " does not exist");
        }
        List<Taint> now = node.getSpec() == null || node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints();
        List<Taint> wanted = new ArrayList<>(now.stream().filter(t -> !TAINT_KEY.equals(t.getKey())).toList());
        if (value != null) {
            wanted.add(new TaintBuilder().withKey(TAINT_KEY).withValue(value).withEffect(taint.effect()).build());
        }
        if (!wanted.equals(now)) {
            client.nodes().withName(nodeName).edit(n -> {
                if (n.getSpec() == null) {
                    n.setSpec(new NodeSpec());
                }
                n.getSpec().setTaints(wanted);
                return n;
            });
        }
        writtenTaint = value;
        taintSynced = true;
    }

    private void event(NodeCondition condition, Instant now) {
        String at = now.toString();
        client.v1().events().inNamespace("default").resource(new EventBuilder()
                .withNewMetadata().withGenerateName(nodeName + "-rdma-").withNamespace("default").endMetadata()
                .withNewInvolvedObject().withApiVersion("v1").withKind("Node").withName(nodeName).withUid(nodeName).endInvolvedObject()
                .withType(condition.status() ? "Warning" : "Normal")
                .withReason(condition.type().name())
                .withMessage((condition.status() ? "" : "cleared: ") + condition.message())
                .withFirstTimestamp(at).withLastTimestamp(at).withCount(1)
                .withNewSource().withComponent("railyard-agent").withHost(nodeName).endSource()
                .build()).create();
    }
}
