package io.railyard.cli;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.railyard.api.Names;
import io.railyard.operator.preflight.HelperOutput;
import io.railyard.operator.preflight.PodLogs;
import io.railyard.operator.preflight.PreflightPods;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a cluster does with preflight pods, played against the CRUD mock API server (which has no scheduler, kubelet or
 * logs): servers get an address and run, clients finish, pods for an unschedulable node stay Pending with the
 * scheduler's condition; and the helper's logs, made of real perftest outputs (testdata/perftest) picked by the link.
 */
public final class PreflightCluster implements AutoCloseable {
    static final Path PERFTEST = Path.of(System.getProperty("railyard.repo", "..")).resolve("testdata/perftest");
    public static final String FAST = "ib-write-bw-duration-ib-198gbits-edited-01.txt";
    public static final String SLOW = "ib-write-bw-duration-roce-42gbits-01.txt";
    public static final String CONNECT_FAILED = "ib-write-bw-connect-failed-01.txt";

    private final KubernetesClient client;
    private final String namespace;
    public final Set<String> slowNodes = ConcurrentHashMap.newKeySet();
    public final Set<String> unschedulable = ConcurrentHashMap.newKeySet();
    public final Set<String> withoutDevice = ConcurrentHashMap.newKeySet();
    /** Nodes whose runtime cannot pull the image. */
    public final Set<String> imagePullFails = ConcurrentHashMap.newKeySet();
    /** Links (client node, server node) whose client cannot reach the server. */
    public final Set<List<String>> brokenLinks = ConcurrentHashMap.newKeySet();
    private final Map<String, String> samples = new ConcurrentHashMap<>();
    private final AtomicInteger addresses = new AtomicInteger();
    private final SharedIndexInformer<Pod> kubelet;

    public PreflightCluster(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
        for (String sample : List.of(FAST, SLOW, CONNECT_FAILED)) {
            try {
                samples.put(sample, Files.readString(PERFTEST.resolve(sample)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        kubelet = client.pods().inNamespace(namespace).withLabel(Names.PREFLIGHT_LABEL).inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                play(pod);
            }

            @Override
            public void onUpdate(Pod before, Pod pod) {
                // its own status updates
            }

            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown) {
                // the sweep removing its pods
            }
        });
    }

    /** Nodes offering {@code devices} of rdma/rdma at 200 Gb/s, as the agent labels them, and the label {@code selector}. */
    public static void nodes(KubernetesClient client, int count, int devices, String selector) {
        for (int i = 0; i < count; i++) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(String.format("node-%02d", i))
                    .addToLabels(selector, "true").addToLabels(Names.PREFIX + "rdma.rate-gbps", "200").endMetadata()
                    .withNewStatus().addToAllocatable(Names.DEFAULT_RDMA_RESOURCE, new Quantity(String.valueOf(devices))).endStatus().build()).create();
        }
    }

    /** Runs {@code railyard preflight ARGS} in this JVM, its pods' logs from this cluster (for the benches). */
    public int preflight(java.io.PrintWriter out, java.io.PrintWriter err, String... args) {
        picocli.CommandLine.IFactory factory = new picocli.CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> type) throws Exception {
                return type == PreflightCommand.class ? type.cast(new PreflightCommand(logs())) : picocli.CommandLine.defaultFactory().create(type);
            }
        };
        return Railyard.run(out, err, factory, args);
    }

    /** The pods' logs as the helper would have written them. */
    public PodLogs logs() {
        return (ns, name) -> Optional.ofNullable(client.pods().inNamespace(ns).withName(name).get()).map(this::log);
    }

    private String log(Pod pod) {
        String node = node(pod);
        String peer = pod.getMetadata().getAnnotations().get(Names.PREFLIGHT_PEER_ANNOTATION);
        String role = pod.getMetadata().getAnnotations().get(Names.PREFLIGHT_ROLE_ANNOTATION);
        if (withoutDevice.contains(node)) {
            return HelperOutput.error("no RDMA device is allocated to this container") + "\n";
        }
        int devices = Integer.parseInt(pod.getSpec().getContainers().getFirst().getResources().getLimits().get(Names.DEFAULT_RDMA_RESOURCE).getAmount());
        StringBuilder log = new StringBuilder();
        for (int k = 0; k < devices; k++) {
            String hca = "mlx5_" + k;
            if (role.equals(PreflightPods.SERVER)) {
                log.append(HelperOutput.begin(role, k, hca, 1, 200.0, null)).append("\n Waiting for client to connect...\n")
                        .append(HelperOutput.end(role, k, hca, "0")).append('\n');
                continue;
            }
            boolean broken = brokenLinks.contains(List.of(node, peer));
            String sample = broken ? CONNECT_FAILED : slowNodes.contains(node) || slowNodes.contains(peer) ? SLOW : FAST;
            log.append(HelperOutput.begin(role, k, hca, 1, 200.0, "10.0.0.1")).append('\n').append(samples.get(sample))
                    .append(HelperOutput.end(role, k, hca, broken ? "1" : "0")).append('\n');
        }
        return log.toString();
    }

    private static String node(Pod pod) {
        return pod.getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms()
                .getFirst().getMatchExpressions().getFirst().getValues().getFirst();
    }

    /** A new preflight pod: scheduled and run, or left Pending, as its node allows. */
    private void play(Pod pod) {
        String node = node(pod);
        boolean server = PreflightPods.SERVER.equals(pod.getMetadata().getAnnotations().get(Names.PREFLIGHT_ROLE_ANNOTATION));
        int address = addresses.incrementAndGet();
        PodBuilder status = new PodBuilder(pod);
        if (unschedulable.contains(node)) {
            status.withNewStatus().withPhase("Pending").addNewCondition().withType("PodScheduled").withStatus("False")
                    .withReason("Unschedulable").withMessage("0/16 nodes are available: 1 Insufficient rdma/rdma.").endCondition().endStatus();
        } else if (imagePullFails.contains(node)) {
            status.editSpec().withNodeName(node).endSpec().withNewStatus().withPhase("Pending").addNewContainerStatus()
                    .withName(PreflightPods.CONTAINER).withNewState().withNewWaiting().withReason("ImagePullBackOff")
                    .withMessage("Back-off pulling image \"registry.local/railyard:0.1.0\"").endWaiting().endState()
                    .endContainerStatus().endStatus();
        } else {
            status.editSpec().withNodeName(node).endSpec().withNewStatus().withPhase(withoutDevice.contains(node) ? "Failed" : server ? "Running" : "Succeeded")
                    .withPodIP("10.1." + (address / 250) + "." + (address % 250 + 1)).endStatus();
        }
        try {
            client.pods().inNamespace(namespace).resource(status.build()).updateStatus();
        } catch (KubernetesClientException e) {
            // the pod was deleted meanwhile
        }
    }

    @Override
    public void close() {
        kubelet.close();
    }
}
