package io.railyard.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.railyard.diagnose.logs.RdmaVerdict;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Rank 0's log read through the real pods/log endpoint (the mock server in expectation mode: its CRUD mode serves no
 * logs, and it does not cut a body at limitBytes, so the expectation answers what an API server would).
 */
@EnableKubernetesMockClient
class RankZeroLogTest {
    static KubernetesMockServer server;
    static KubernetesClient client;

    @Test
    void aLongJobsVerdictComesFromTheNcclLinesAtTheStartOfItsLog() throws Exception {
        String ncclInit = Files.readString(Path.of(System.getProperty("railyard.repo", "..")).resolve("testdata/logs/nccl-ib-gdr-ok-aks-01.log"));
        StringBuilder log = new StringBuilder(ncclInit);
        for (int step = 0; log.length() < 24 << 20; step++) {   // 24 MB of a chatty training loop after NCCL's init
            log.append("[rank0]: step ").append(step).append(" loss 2.3456 lr 3.0e-4 tokens/s 812345 grad_norm 1.02\n");
        }
        byte[] head = new byte[RankZeroLog.HEAD_BYTES];
        System.arraycopy(log.toString().getBytes(StandardCharsets.UTF_8), 0, head, 0, head.length);
        server.expect().get().withPath("/api/v1/namespaces/ns/pods/rank-0/log?pretty=false&container=trainer&limitBytes=" + RankZeroLog.HEAD_BYTES)
                .andReturn(200, new String(head, StandardCharsets.UTF_8)).once();

        String read = RankZeroLog.through(client).read("ns", "rank-0").orElseThrow();

        assertThat(read).startsWith(ncclInit.substring(0, 200)).hasSize(RankZeroLog.HEAD_BYTES);
        RdmaVerdict verdict = RdmaVerdict.of(read, true);
        assertThat(verdict.verified()).isTrue();
        assertThat(verdict.reason()).isEqualTo("RdmaInUse");
        // The last 20,000 lines, as the operator read before, hold no NCCL line at all.
        String tail = log.substring(log.length() - 20_000 * 80);
        assertThat(RdmaVerdict.of(tail, true).reason()).isEqualTo("NotYetKnown");
    }
}
