package io.railyard.operator.preflight;

import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.railyard.api.Names;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** What a sweep leaves on the nodes when asked: a label and an annotation on each, a taint on the failed ones. */
public final class PreflightNodeMarks {
    private final KubernetesClient client;
    private final PrintWriter err;

    public PreflightNodeMarks(KubernetesClient client, PrintWriter err) {
        this.client = client;
        this.err = err;
    }

    /** railyard.io/preflight=passed|failed, and when with the node's worst figure. */
    public void label(PreflightVerdict verdict) {
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        for (PreflightVerdict.NodeVerdict node : verdict.nodes()) {
            String result = now + " " + worst(verdict, node);
            client.nodes().withName(node.node()).patch(PatchContext.of(PatchType.JSON_MERGE), Serialization.asJson(Map.of("metadata", Map.of(
                    "labels", Map.of(Names.PREFLIGHT_LABEL, node.ok() ? "passed" : "failed"),
                    "annotations", Map.of(Names.PREFLIGHT_RESULT_ANNOTATION, result)))));
        }
        err.println("preflight: labelled " + verdict.nodes().size() + " nodes " + Names.PREFLIGHT_LABEL);
    }

    /** The NoSchedule taint on every node that is not ok; a node that has it already is left alone. */
    public void taint(PreflightVerdict verdict) {
        for (PreflightVerdict.NodeVerdict node : verdict.nodes()) {
            if (node.ok()) {
                continue;
            }
            Taint taint = new TaintBuilder().withKey(Names.PREFLIGHT_TAINT).withValue("true").withEffect("NoSchedule").build();
            client.nodes().withName(node.node()).edit(n -> {
                if (n.getSpec() == null) {
                    n.setSpec(new NodeSpec());
                }
                List<Taint> taints = new ArrayList<>(n.getSpec().getTaints() == null ? List.of() : n.getSpec().getTaints());
                if (taints.stream().noneMatch(t -> Names.PREFLIGHT_TAINT.equals(t.getKey()))) {
                    taints.add(taint);
                }
                n.getSpec().setTaints(taints);
                return n;
            });
            err.println("preflight: tainted node " + node.node() + " " + Names.PREFLIGHT_TAINT + ":NoSchedule (" + node.verdict() + ")");
        }
    }

    private static String worst(PreflightVerdict verdict, PreflightVerdict.NodeVerdict node) {
        return verdict.links().stream().filter(link -> link.touches(node.node()))
                .min(Comparator.comparing((Link link) -> link.percent() == null ? -1 : link.percent()))
                .map(link -> link.percent() == null ? link.verdict() + " (" + link.reason() + ")"
                        : "worst " + link.percent() + "% of line rate (" + link.client() + " " + link.hca() + " -> " + link.server() + ")")
                .orElse(node.verdict() + (node.reason() == null ? "" : " (" + node.reason() + ")"));
    }
}
