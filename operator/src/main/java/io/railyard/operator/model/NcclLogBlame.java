package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The node rank 0's NCCL log blames for a gang's failure: a fatal IB async event (a port error, the HCA's catastrophic
 * error) names the host that logged it, and a completion the peer never acknowledged (status 12 or 13) names the
 * peer, unless the peer's own trainer exited non-zero first: then the peer crashed and the network only carried the
 * news. A line whose host or peer is none of the gang's (cut, or redacted) blames nobody.
 */
final class NcclLogBlame {
    static final String PORT_ERROR = "NcclPortError";
    static final String DEVICE_ERROR = "NcclDeviceError";
    static final String COMPLETION_ERROR = "NcclCompletionError";
    /**
     * "host:pid:tid [dev]", after whatever a launcher put before it: the host is the pod's hostname, or the node's on
     * the host network.
     */
    private static final Pattern HOST = Pattern.compile("(?:^|[\\s:>])([A-Za-z0-9][A-Za-z0-9.-]*):\\d+:\\d+ \\[\\d+\\]");
    private static final Pattern ASYNC = Pattern.compile("NET/IB\\s*:.*Got async event\\s*:\\s*(.*)$");
    /** ibv_event_type_str's words for the events after which the port or device carries nothing. */
    private static final List<String> FATAL_EVENTS = List.of("port error", "local catastrophic error", "local work queue catastrophic error");
    /** The peer by its address, or by its host name (older NCCL). */
    private static final Pattern COMPLETION = Pattern.compile("Got completion from peer ([^\\s<%]+)(?:%\\w+)?<\\d+> with (?:error |status=)(\\d+)");

    /** @param node the blamed node; @param line the log line that names it */
    record Verdict(String node, String reason, String line) {}

    private NcclLogBlame() {}

    /**
     * @param members the gang's pods, whose names, nodes and addresses the log's hosts and peers are matched with
     * @param crashed whether a pod's own trainer exited non-zero
     */
    static Optional<Verdict> of(String log, List<Pod> members, Predicate<Pod> crashed) {
        Map<String, Pod> byHost = new HashMap<>();
        Map<String, Pod> byAddress = new HashMap<>();
        for (Pod pod : members) {
            byHost.put(pod.getMetadata().getName(), pod);
            if (pod.getSpec() != null && pod.getSpec().getNodeName() != null) {
                byHost.put(pod.getSpec().getNodeName(), pod);
            }
            if (pod.getStatus() != null) {
                if (pod.getStatus().getPodIP() != null) {
                    byAddress.put(pod.getStatus().getPodIP(), pod);
                }
                if (pod.getStatus().getHostIP() != null) {
                    byAddress.putIfAbsent(pod.getStatus().getHostIP(), pod);
                }
            }
        }
        for (String line : log.split("\r?\n")) {
            Matcher async = ASYNC.matcher(line);
            if (async.find() && FATAL_EVENTS.stream().anyMatch(async.group(1).strip()::startsWith)) {
                Matcher host = HOST.matcher(line);
                Pod pod = host.find() ? byHost.get(host.group(1)) : null;
                if (pod != null && pod.getSpec().getNodeName() != null) {
                    String reason = async.group(1).strip().startsWith("port error") ? PORT_ERROR : DEVICE_ERROR;
                    return Optional.of(new Verdict(pod.getSpec().getNodeName(), reason, line.strip()));
                }
            }
            Matcher completion = COMPLETION.matcher(line);
            if (completion.find() && (completion.group(2).equals("12") || completion.group(2).equals("13"))) {
                Pod peer = byAddress.getOrDefault(completion.group(1), byHost.get(completion.group(1)));
                if (peer != null && peer.getSpec().getNodeName() != null && !crashed.test(peer)) {
                    return Optional.of(new Verdict(peer.getSpec().getNodeName(), COMPLETION_ERROR, line.strip()));
                }
            }
        }
        return Optional.empty();
    }
}
