package io.railyard.operator.preflight;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The verdict on a sweep: a node whose own pod could not run has failed; a node whose every link is slow or failed is
 * the likely cause (suspect); a single bad link between nodes with good links elsewhere is the link's (cable, port).
 */
public record PreflightVerdict(boolean passed, List<Link> links, List<NodeVerdict> nodes) {

    /** @param verdict ok, suspect or failed */
    public record NodeVerdict(String node, String verdict, String reason) {
        public boolean ok() {
            return verdict.equals("ok");
        }
    }

    /** @param unusable nodes left out of the pairing, with the reason (no RDMA resource offered) */
    public static PreflightVerdict judge(List<String> nodes, List<Link> links, Map<String, String> unusable) {
        List<NodeVerdict> verdicts = new ArrayList<>();
        for (String node : nodes) {
            if (unusable.containsKey(node)) {
                verdicts.add(new NodeVerdict(node, "failed", unusable.get(node)));
                continue;
            }
            // a link that failed because the peer's own pod could not run says nothing about this node
            List<Link> own = links.stream().filter(link -> link.touches(node) && (link.blame() == null || link.blame().equals(node))).toList();
            Link blamed = own.stream().filter(link -> node.equals(link.blame())).findFirst().orElse(null);
            List<Link> bad = own.stream().filter(link -> !link.ok()).toList();
            if (blamed != null) {
                verdicts.add(new NodeVerdict(node, "failed", blamed.reason()));
            } else if (!own.isEmpty() && bad.size() == own.size()) {
                Set<String> peers = new LinkedHashSet<>(bad.stream().map(link -> link.peerOf(node)).toList());
                verdicts.add(new NodeVerdict(node, "suspect", peers.size() > 1
                        ? "all " + bad.size() + " of its links (to " + String.join(", ", peers) + ") are slow or failed"
                        : "its only tested peer, " + peers.iterator().next() + ", is unreachable or slow: this node, the peer or the cable"));
            } else {
                verdicts.add(new NodeVerdict(node, "ok", null));
            }
        }
        List<Link> sorted = links.stream()
                .sorted(Comparator.comparing((Link link) -> link.verdict().ordinal()).reversed()
                        .thenComparing(Link::client).thenComparing(Link::server).thenComparing(link -> String.valueOf(link.hca())))
                .toList();
        return new PreflightVerdict(unusable.isEmpty() && links.stream().allMatch(Link::ok), sorted, verdicts);
    }

    /** One line for a person: the suspect or failed nodes, else the worst link. */
    public String summary() {
        if (passed) {
            double worst = links.stream().filter(l -> l.percent() != null).mapToDouble(Link::percent).min().orElse(Double.NaN);
            return links.size() + " links at or above the minimum" + (Double.isNaN(worst) ? "" : String.format(" (slowest %.1f%% of line rate)", worst));
        }
        List<String> blamed = nodes.stream().filter(n -> !n.ok()).map(n -> n.node() + " " + n.verdict() + ": " + n.reason()).toList();
        if (!blamed.isEmpty()) {
            return String.join("; ", blamed);
        }
        Link worst = links.getFirst();
        return "link " + worst.client() + (worst.hca() == null ? "" : " " + worst.hca()) + " -> " + worst.server() + " "
                + worst.verdict() + ": " + worst.reason();
    }
}
