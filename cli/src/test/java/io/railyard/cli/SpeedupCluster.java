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
import io.railyard.cli.speedup.CollectiveJobs;
import io.railyard.operator.preflight.PodLogs;
import io.railyard.operator.preflight.PreflightPods;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a cluster does with speed-up pods, played against the CRUD mock API server (no scheduler, kubelet or logs):
 * pods run and finish, or stay Pending on an unschedulable node; their logs are the helper's frames around real tool
 * outputs (perftest from public threads, iperf3 3.12 over loopback, testdata/), as {@code speedup-link} prints them.
 */
final class SpeedupCluster implements AutoCloseable {
    static final Path TESTDATA = Path.of(System.getProperty("railyard.repo", "..")).resolve("testdata");
    /** The node's CPUs in the client's frames: the GB10 of the perftest sample has 20. */
    static final int CPUS = 20;
    static final double RTT_US = 52.0;

    private final KubernetesClient client;
    private final String namespace;
    final Set<String> unschedulable = ConcurrentHashMap.newKeySet();
    final Set<String> withoutIperf3 = ConcurrentHashMap.newKeySet();
    private final AtomicInteger addresses = new AtomicInteger();
    private final SharedIndexInformer<Pod> kubelet;

    SpeedupCluster(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
        kubelet = client.pods().inNamespace(namespace).withLabel(CollectiveJobs.SPEEDUP_LABEL).inform(new ResourceEventHandler<>() {
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

    /** Nodes labelled {@code selector=true}, those in {@code rdmaDevices} offering that many rdma/rdma, the others none. */
    static void nodes(KubernetesClient client, String selector, int count, int devices, Set<Integer> withoutRdma) {
        for (int i = 0; i < count; i++) {
            NodeBuilder node = new NodeBuilder().withNewMetadata().withName(String.format("node-%02d", i)).addToLabels(selector, "true").endMetadata();
            client.nodes().resource(node.withNewStatus()
                    .addToAllocatable(Names.DEFAULT_RDMA_RESOURCE, new Quantity(withoutRdma.contains(i) ? "0" : String.valueOf(devices)))
                    .addToAllocatable(SpeedupCommand.GPU_RESOURCE, new Quantity("8")).endStatus().build()).create();
        }
    }

    PodLogs logs() {
        return (ns, name) -> Optional.ofNullable(client.pods().inNamespace(ns).withName(name).get()).map(this::log);
    }

    static String sample(String relative) {
        try {
            return Files.readString(TESTDATA.resolve(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String framed(String head, String body, String exit) {
        return SpeedupLinkCommand.MARK + "begin " + head + "\n" + body + (body.endsWith("\n") ? "" : "\n") + SpeedupLinkCommand.MARK + "end "
                + head.split(" ")[0] + " exit=" + exit + "\n";
    }

    /** The helper's output for this pod's role, node and arguments. */
    private String log(Pod pod) {
        String node = node(pod);
        boolean server = PreflightPods.SERVER.equals(pod.getMetadata().getAnnotations().get(Names.PREFLIGHT_ROLE_ANNOTATION));
        String role = server ? "server" : "client";
        var limits = pod.getSpec().getContainers().getFirst().getResources().getLimits();
        int devices = limits.containsKey(Names.DEFAULT_RDMA_RESOURCE) ? Integer.parseInt(limits.get(Names.DEFAULT_RDMA_RESOURCE).getAmount()) : 0;
        StringBuilder log = new StringBuilder();
        if (devices == 0) {
            log.append(SpeedupLinkCommand.MARK).append("skip test=rdma reason=the pair has a node without an RDMA device\n");
        }
        for (int k = 0; k < devices; k++) {
            String head = "test=rdma-bw role=" + role + " index=" + k + " hca=mlx5_" + k + " cpus=" + CPUS;
            log.append(framed(head, server ? "\n Waiting for client to connect...\n" : sample("perftest/ib-write-bw-cpu-util-roce-92gbits-01.txt"), "0"));
        }
        if (devices > 0) {
            log.append(framed("test=rdma-lat role=" + role + " index=0 hca=mlx5_0", server ? " Waiting for client to connect...\n"
                    : sample("perftest/ib-write-lat-ib-1.47us-01.txt"), "0"));
        }
        String tcpHead = "test=tcp-bw role=" + role + " streams=" + Math.max(1, devices) + " cpus=" + CPUS;
        String peer = pod.getMetadata().getAnnotations().get(Names.PREFLIGHT_PEER_ANNOTATION);
        if (withoutIperf3.contains(node)) {
            log.append(framed(tcpHead, "cannot run iperf3: Cannot run program \"iperf3\": error=2, No such file or directory", "127"));
        } else if (!server && withoutIperf3.contains(peer)) {
            log.append(framed(tcpHead, sample("iperf3/iperf3-client-refused-01.json"), "1"));
        } else {
            log.append(framed(tcpHead, sample(server ? "iperf3/iperf3-server-loopback-2streams-01.json" : "iperf3/iperf3-client-loopback-2streams-01.json"), "0"));
        }
        log.append(framed("test=tcp-lat role=" + role, SpeedupLinkCommand.MARK + (server ? "tcp-lat served=1100" : "tcp-lat samples=1000 rtt-us=" + RTT_US), "0"));
        return log.toString();
    }

    private static String node(Pod pod) {
        return pod.getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms()
                .getFirst().getMatchExpressions().getFirst().getValues().getFirst();
    }

    private void play(Pod pod) {
        String node = node(pod);
        boolean server = PreflightPods.SERVER.equals(pod.getMetadata().getAnnotations().get(Names.PREFLIGHT_ROLE_ANNOTATION));
        int address = addresses.incrementAndGet();
        PodBuilder status = new PodBuilder(pod);
        if (unschedulable.contains(node)) {
            status.withNewStatus().withPhase("Pending").addNewCondition().withType("PodScheduled").withStatus("False")
                    .withReason("Unschedulable").withMessage("0/4 nodes are available: 1 node(s) had untolerated taint.").endCondition().endStatus();
        } else {
            status.editSpec().withNodeName(node).endSpec().withNewStatus().withPhase(server ? "Running" : "Succeeded")
                    .withPodIP("10.1.0." + address).endStatus();
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
