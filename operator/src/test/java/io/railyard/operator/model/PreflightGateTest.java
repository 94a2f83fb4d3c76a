package io.railyard.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.railyard.api.TrainingJob;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The gate as the builders render it, and its verdict from the pods' preflight container statuses. */
class PreflightGateTest {
    private static final String SPEC = """
            image: pytorch
            script: train.py
            nodes: 4
            gpusPerNode: 8
            rdma: {devicesPerNode: 2}
            preflight: {minLineRatePercent: 90, timeoutSeconds: 120}
            dataset: {claimName: data, mountPath: /data, loader: {image: busybox, command: [sh, -c, "true"]}}
            """;
    private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");

    @Test
    void eachPodMeasuresItsHcasToTheNextPodBeforeItsDataLoads() {
        List<Pod> pods = Jobs.pods(Jobs.yaml(SPEC));

        Container gate = pods.get(3).getSpec().getInitContainers().getFirst();
        assertThat(gate.getName()).isEqualTo("preflight");
        assertThat(pods.get(3).getSpec().getInitContainers()).extracting(Container::getName).containsExactly("preflight", "load-dataset");
        assertThat(gate.getImage()).isEqualTo(OperatorDefaults.RAILYARD_IMAGE);
        assertThat(gate.getArgs()).containsExactly("preflight-link", "--role=both", "--peer=job-0.job.ns.svc", "--port-base=18515",
                "--duration=5", "--timeout=120", "--min-percent=90");
        assertThat(gate.getResources().getLimits()).containsEntry("rdma/rdma", new Quantity("2")).doesNotContainKey("nvidia.com/gpu");
        assertThat(gate.getSecurityContext().getCapabilities().getAdd()).containsExactly("IPC_LOCK");
        assertThat(gate.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(pods.get(0).getSpec().getInitContainers().getFirst().getArgs()).contains("--peer=job-1.job.ns.svc");
    }

    @Test
    void oneNodeHasNoGateAndIsWarned() {
        TrainingJob job = Jobs.yaml(SPEC.replace("nodes: 4", "nodes: 1"));

        assertThat(Jobs.pods(job).getFirst().getSpec().getInitContainers()).extracting(Container::getName).containsExactly("load-dataset", "nccl-watch");
        assertThat(TrainingJobModel.desired(job, new OperatorDefaults("img", "rdma/rdma")).warnings()).contains("spec.preflight does nothing with one node: there is no link between nodes to measure");
    }

    private static List<Pod> placed(TrainingJob job) {
        List<Pod> pods = new ArrayList<>();
        for (Pod pod : Jobs.pods(job)) {
            pods.add(new PodBuilder(pod).editSpec().withNodeName("node-" + pod.getMetadata().getLabels().get("railyard.io/job-index")).endSpec().build());
        }
        return pods;
    }

    private static Pod finished(Pod pod, int exit, String message, Instant at) {
        return new PodBuilder(pod).withNewStatus().withPhase(exit == 0 ? "Pending" : "Failed").addNewInitContainerStatus().withName("preflight")
                .withNewState().withNewTerminated().withExitCode(exit).withMessage(message).withFinishedAt(at.toString()).endTerminated().endState()
                .endInitContainerStatus().endStatus().build();
    }

    private static String links(double gbps, double percent, String verdict) {
        return """
                {"links":[{"hca":"mlx5_0","gbps":%s,"lineRateGbps":200.0,"percent":%s,"verdict":"%s","reason":null}]}""".formatted(gbps, percent, verdict);
    }

    @Test
    void everyPodPassingPassesWithEveryLink() {
        List<Pod> pods = placed(Jobs.yaml(SPEC)).stream().map(pod -> finished(pod, 0, links(196, 98, "ok"), NOW)).toList();

        PreflightGate.Result result = PreflightGate.observe(Jobs.yaml(SPEC), pods, NOW);

        assertThat(result.state()).isEqualTo(PreflightGate.State.PASSED);
        assertThat(result.status().links).hasSize(4).extracting(l -> l.from + ">" + l.to)
                .containsExactlyInAnyOrder("node-0>node-1", "node-1>node-2", "node-2>node-3", "node-3>node-0");
    }

    @Test
    void aFailureWaitsForThePeersThenNamesTheSuspect() {
        TrainingJob job = Jobs.yaml(SPEC);
        List<Pod> pods = new ArrayList<>(placed(job));
        pods.set(1, finished(pods.get(1), 1, links(50, 25, "slow").replace("null", "\"50.0 Gb/s is 25.0% of the 200 Gb/s line rate, below 90%\""), NOW));
        pods.set(2, finished(pods.get(2), 0, links(196, 98, "ok"), NOW));

        PreflightGate.Result waiting = PreflightGate.observe(job, pods, NOW.plusSeconds(5));
        assertThat(waiting.state()).isEqualTo(PreflightGate.State.MEASURING);
        assertThat(waiting.holdsFailure()).as("the failed pod does not restart the gang").isTrue();
        assertThat(waiting.decidesAt()).as("when the gate stops waiting for the peers").isEqualTo(NOW.plusSeconds(120).plusMillis(1)); // timeoutSeconds after the first failure

        // node-0 sends to node-1: failed too, both of node-1's links are bad
        pods.set(0, finished(pods.get(0), 1, "{\"links\":[{\"hca\":\"mlx5_0\",\"verdict\":\"failed\",\"reason\":\"ib_write_bw: Couldn't connect to 10.0.0.2:18515\"}]}", NOW));
        pods.set(3, finished(pods.get(3), 0, links(197, 98.5, "ok"), NOW));
        PreflightGate.Result failed = PreflightGate.observe(job, pods, NOW.plusSeconds(6));

        assertThat(failed.state()).isEqualTo(PreflightGate.State.FAILED);
        assertThat(failed.nodesToMark()).containsExactly("node-1");
        assertThat(failed.status().message).isEqualTo("node-1 suspect: all 2 of its links (to node-0, node-2) are slow or failed");
        assertThat(failed.status().links.getFirst().verdict).isEqualTo("failed");
    }

    @Test
    void aPeerThatNeverFinishesFailsTheGateAfterTheTimeout() {
        TrainingJob job = Jobs.yaml(SPEC);
        List<Pod> pods = new ArrayList<>(placed(job));
        pods.set(2, finished(pods.get(2), 1, "{\"links\":[],\"error\":\"no RDMA device allocated\"}", NOW));

        assertThat(PreflightGate.observe(job, pods, NOW.plusSeconds(60)).state()).isEqualTo(PreflightGate.State.MEASURING);
        PreflightGate.Result result = PreflightGate.observe(job, pods, NOW.plusSeconds(121));

        assertThat(result.state()).isEqualTo(PreflightGate.State.FAILED);
        assertThat(result.nodesToMark()).containsExactly("node-2");
        assertThat(result.status().message).isEqualTo("node-2 failed: no RDMA device allocated");
    }
}
