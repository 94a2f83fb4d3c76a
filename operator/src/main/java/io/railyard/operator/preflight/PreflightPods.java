package io.railyard.operator.preflight;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.railyard.api.Names;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The pods and containers that run {@code railyard preflight-link}: a server and a client pod per pair for the
 * command, an init container per training pod for the gate. Every value reaches the helper as its own argv element.
 */
public final class PreflightPods {
    public static final String SERVER = "server";
    public static final String CLIENT = "client";
    /** The gate's pods serve their predecessor and send to their successor at once. */
    public static final String BOTH = "both";
    public static final String CONTAINER = "preflight";
    /** perftest's default port; HCA k listens on the base + k. */
    public static final int PORT_BASE = 18515;

    /** What every helper of one sweep or gate shares. */
    public record Settings(String image, String rdmaResource, int devicesPerNode, boolean hostNetwork, int timeoutSeconds,
            int durationSeconds) {}

    private PreflightPods() {}

    /** A pod of the command, pinned to its node; {@code serverAddress} is null for the server. */
    public static Pod pod(String namespace, String run, String name, String role, String node, String peerNode, String serverAddress,
            Settings settings) {
        return pod(namespace, Names.PREFLIGHT_LABEL, run, name, role, node, peerNode, helperArgs(role, serverAddress, PORT_BASE, settings, null),
                settings);
    }

    /**
     * A measurement pod of a sweep (preflight, speedup) pinned to its node, labelled {@code label=run}, running Railyard's
     * helper with {@code args}; with {@code settings.devicesPerNode()} 0 it asks for no RDMA device.
     */
    public static Pod pod(String namespace, String label, String run, String name, String role, String node, String peerNode, List<String> args,
            Settings settings) {
        PodSpecBuilder spec = new PodSpecBuilder()
                .withRestartPolicy("Never")
                .withNewAffinity().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .addNewNodeSelectorTerm().addNewMatchExpression().withKey("kubernetes.io/hostname").withOperator("In").withValues(node)
                .endMatchExpression().endNodeSelectorTerm()
                .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().endAffinity()
                // a node tainted by an earlier sweep can be tested again
                .addNewToleration().withKey(Names.PREFLIGHT_TAINT).withOperator("Exists").withEffect("NoSchedule").endToleration()
                .withContainers(container(settings, args));
        if (settings.hostNetwork()) {
            spec.withHostNetwork(true).withDnsPolicy("ClusterFirstWithHostNet");
        }
        return new PodBuilder().withNewMetadata().withName(name).withNamespace(namespace)
                .addToLabels(label, run)
                .addToAnnotations(Map.of(Names.PREFLIGHT_ROLE_ANNOTATION, role, Names.PREFLIGHT_PEER_ANNOTATION, peerNode,
                        Names.PREFLIGHT_HCA_ANNOTATION, hcaIndexes(settings.devicesPerNode())))
                .endMetadata().withSpec(spec.build()).build();
    }

    /**
     * The gate's init container: it serves the previous pod and sends to {@code peerAddress}, the next pod, and exits 1
     * when one of its links is below {@code minPercent} of the line rate, its figures in the termination message.
     */
    public static Container gate(String peerAddress, int portBase, int minPercent, Settings settings) {
        return container(settings, helperArgs(BOTH, peerAddress, portBase, settings, minPercent));
    }

    private static Container container(Settings settings, List<String> args) {
        Map<String, Quantity> rdma = settings.devicesPerNode() == 0 ? Map.of()
                : Map.of(settings.rdmaResource(), new Quantity(String.valueOf(settings.devicesPerNode())));
        return new ContainerBuilder()
                .withName(CONTAINER)
                .withImage(settings.image())
                .withArgs(args)
                .withNewResources().withLimits(rdma).withRequests(rdma).endResources()
                // root for the verbs devices and memlock; no capability but IPC_LOCK, which pins ib_write_bw's buffers
                .withNewSecurityContext().withRunAsUser(0L).withRunAsNonRoot(false).withAllowPrivilegeEscalation(false)
                .withNewCapabilities().withDrop("ALL").withAdd("IPC_LOCK").endCapabilities().endSecurityContext()
                .withTerminationMessagePolicy("File")
                .build();
    }

    static List<String> helperArgs(String role, String peer, int portBase, Settings settings, Integer minPercent) {
        List<String> args = new ArrayList<>(List.of("preflight-link", "--role=" + role));
        if (peer != null) {
            args.add("--peer=" + peer);
        }
        args.add("--port-base=" + portBase);
        args.add("--duration=" + settings.durationSeconds());
        args.add("--timeout=" + settings.timeoutSeconds());
        if (minPercent != null) {
            args.add("--min-percent=" + minPercent);
        }
        return args;
    }

    /** The HCAs a pod tests, as indexes into what the device plugin allocated: index k meets the peer's index k. */
    private static String hcaIndexes(int devices) {
        return devices == 0 ? "none" : devices == 1 ? "0" : "0-" + (devices - 1);
    }
}
