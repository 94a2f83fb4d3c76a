package io.railyard.cli;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.railyard.api.Names;
import io.railyard.operator.preflight.HelperOutput;
import io.railyard.operator.preflight.PreflightPods;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

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
    private final Set<String> seen = ConcurrentHashMap.newKeySet();
    private final Thread kubelet;
    private volatile boolean running = true;

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
        kubelet = Thread.ofPlatform().daemon().name("preflight-kubelet").start(this::play);
    }

    /** Nodes offering {@code devices} of rdma/rdma at 200 Gb/s, as the agent labels them, and the label {@code selector}. */
    public static void nodes(KubernetesClient client, int count, int devices, String selector) {
        for (int i = 0; i < count; i++) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(String.format("node-%02d", i))
                    .addToLabels(selector, "true").addToLabels(Names.PREFIX + "rdma.rate-gbps", "200").endMetadata()
                    .withNewStatus().addToAllocatable(Names.DEFAULT_RDMA_RESOURCE, new Quantity(String.valueOf(devices))).endStatus().build()).create();
        }
    }

    /** The pods' logs as the helper would have written them. */
    public PreflightSweep.PodLogs logs() {
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

    private void play() {
        int address = 0;
        while (running) {
            try {
                Set<String> present = new HashSet<>();
                for (Pod pod : client.pods().inNamespace(namespace).withLabel(Names.PREFLIGHT_LABEL).list().getItems()) {
                    present.add(pod.getMetadata().getUid());
                    if (!seen.add(pod.getMetadata().getUid())) {
                        continue;
                    }
                    String node = node(pod);
                    boolean server = PreflightPods.SERVER.equals(pod.getMetadata().getAnnotations().get(Names.PREFLIGHT_ROLE_ANNOTATION));
                    address++;
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
                    client.pods().inNamespace(namespace).resource(status.build()).updateStatus();
                }
                seen.retainAll(present);
                Thread.sleep(10);
            } catch (KubernetesClientException e) {
                // a pod deleted between the list and the update
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void close() {
        running = false;
        kubelet.interrupt();
    }
}
