package io.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/** A gang placed by the real kube-scheduler on KWOK's RDMA nodes, and rank 0's NCCL log read through the real API server. */
@ExtendWith(RealCluster.class)
@Order(3)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GangIT {
    private static final Path LOGS = ControlPlane.REPO.resolve("testdata/logs");
    private static final Set<String> RDMA_NODES = Set.of("gang-rdma-1", "gang-rdma-2", "gang-rdma-3", "gang-rdma-4", "gang-rdma-5", "gang-rdma-6");

    private Installation railyard;
    private KubernetesClient client;
    private String namespace;

    @BeforeAll
    void nodes(Installation railyard) {
        this.railyard = railyard;
        this.client = railyard.cluster.admin;
        this.namespace = railyard.jobNamespace("gang");
        RDMA_NODES.forEach(name -> KwokNodes.rdma(client, name, "gang"));
        List.of("gang-tcp-1", "gang-tcp-2", "gang-tcp-3").forEach(name -> KwokNodes.gpuOnly(client, name, "gang"));
    }

    @Test
    void fourRanksRunOnRdmaNodesOnlyOnePerNodeAndRdmaIsVerifiedFromRankZerosLog() {
        railyard.submit(Jobs.yaml(namespace, "verified", 4, "gang"));
        Pod rankZero = Jobs.rankZero(client, namespace, "verified");
        KwokNodes.serveLog(client, namespace, rankZero.getMetadata().getName(), "trainer", LOGS.resolve("nccl-ib-gdr-ok-aks-01.log"));

        List<Pod> running = awaitRunning("verified", 4);
        Set<String> nodes = running.stream().map(p -> p.getSpec().getNodeName()).collect(Collectors.toSet());
        assertThat(nodes).hasSize(4).isSubsetOf(RDMA_NODES);

        Condition verified = awaitCondition("verified", "RdmaVerified");
        assertThat(verified.getStatus()).isEqualTo("True");
        Processes.Result status = RailyardProcess.run(railyard.cluster, null, "status", "verified", "-n", namespace);
        assertThat(status.exitCode()).as(status.err()).isZero();
        assertThat(status.out()).contains("RdmaVerified").containsAnyOf("rank 0: ", "rank 0:");
    }

    @Test
    void aSocketFallbackLogTurnsRdmaVerifiedFalseWithItsEvidence() {
        railyard.submit(Jobs.yaml(namespace, "fallback", 2, "gang"));
        Pod rankZero = Jobs.rankZero(client, namespace, "fallback");
        KwokNodes.serveLog(client, namespace, rankZero.getMetadata().getName(), "trainer", LOGS.resolve("nccl-socket-ib-disabled-lo-01.log"));
        awaitRunning("fallback", 2);

        Condition verified = awaitCondition("fallback", "RdmaVerified");
        assertThat(verified.getStatus()).isEqualTo("False");
        // the evidence: the line of rank 0's log that turned RDMA off, named by pod and line
        assertThat(verified.getMessage()).contains("NCCL_IB_DISABLE=1").contains(rankZero.getMetadata().getName() + " line 3");
        Processes.Result status = RailyardProcess.run(railyard.cluster, null, "status", "fallback", "-n", namespace);
        assertThat(status.out()).contains("RdmaVerified").contains("NCCL_IB_DISABLE=1");
    }

    private List<Pod> awaitRunning(String job, int ranks) {
        return Jobs.awaitRunning(client, namespace, job, ranks, Duration.ofSeconds(90));
    }

    private Condition awaitCondition(String job, String type) {
        return Awaitility.await(job + " has " + type).atMost(Duration.ofSeconds(90))
                .until(() -> Jobs.condition(client, namespace, job, type), java.util.Optional::isPresent).orElseThrow();
    }
}
