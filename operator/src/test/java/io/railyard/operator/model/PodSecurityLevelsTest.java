package io.railyard.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.railyard.api.TrainingJob;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The Pod Security level each kind of TrainingJob needs, as the README's Install section states it. */
class PodSecurityLevelsTest {
    private static final OperatorDefaults DEFAULTS = new OperatorDefaults("img", "rdma/rdma", List.of("/mnt/lustre"));

    private static PodSpec firstPod(TrainingJob job) {
        return TrainingJobModel.desired(job, DEFAULTS).objects().stream().filter(Pod.class::isInstance).map(Pod.class::cast)
                .findFirst().orElseThrow().getSpec();
    }

    @Test
    void theDefaultJobNeedsPrivilegedForIpcLockAndNothingElse() {
        PodSpec pod = firstPod(Jobs.example("llama70b-roce.yaml"));

        assertThat(PodSecurityStandards.baseline(pod)).containsExactly("trainer: adds capability IPC_LOCK");
        assertThat(PodSecurityStandards.level(pod)).isEqualTo("privileged");
    }

    @Test
    void eachFeatureNeedsTheLevelTheReadmeNames() {
        Map<String, String> expected = Map.of(
                "hostnetwork-kueue.yaml", "hostNetwork",
                "ib-volcano.yaml", "hostPath volume dataset",
                "preflight.yaml", "adds capability IPC_LOCK",
                "dra-aligned.yaml", "trainer: adds capability IPC_LOCK");
        expected.forEach((example, violation) -> {
            PodSpec pod = firstPod(Jobs.example(example));
            assertThat(PodSecurityStandards.level(pod)).as(example).isEqualTo("privileged");
            assertThat(PodSecurityStandards.baseline(pod)).as(example).anyMatch(line -> line.contains(violation));
        });
    }

    @Test
    void withoutIpcLockTheDefaultJobWouldPassBaseline() {
        PodSpec pod = firstPod(Jobs.example("llama70b-roce.yaml"));
        pod.getContainers().forEach(c -> c.getSecurityContext().getCapabilities().setAdd(List.of()));

        assertThat(PodSecurityStandards.level(pod)).isEqualTo("baseline");
    }

    @Test
    void railyardsHelperContainersAndTheOperatorAreRestricted() throws Exception {
        PodSpec sidecarOnly = new PodSpec();
        PodSpec inPlace = TrainingJobModel.desired(Jobs.example("llama70b-roce.yaml"), DEFAULTS.withInPlaceRestart(true)).objects().stream()
                .filter(Pod.class::isInstance).map(Pod.class::cast).findFirst().orElseThrow().getSpec();
        sidecarOnly.setInitContainers(Stream.concat(Stream.of("llama70b-roce.yaml", "topology.yaml").flatMap(example -> firstPod(Jobs.example(example))
                .getInitContainers().stream()), inPlace.getInitContainers().stream())
                .filter(c -> List.of(HangWatch.CONTAINER, PodModel.AWAIT_RANK, RestartStrategies.RESTART_WATCH).contains(c.getName())).toList());
        assertThat(sidecarOnly.getInitContainers()).extracting(io.fabric8.kubernetes.api.model.Container::getName)
                .contains(HangWatch.CONTAINER, PodModel.AWAIT_RANK, RestartStrategies.RESTART_WATCH);
        assertThat(PodSecurityStandards.restricted(sidecarOnly)).isEmpty();

        Path deployment = Path.of(System.getProperty("railyard.repo", "..")).resolve("deploy/operator/deployment.yaml");
        try (var client = new KubernetesClientBuilder().build(); InputStream in = Files.newInputStream(deployment)) {
            List<HasMetadata> objects = client.load(in).items();
            PodSpec operator = objects.stream().filter(Deployment.class::isInstance).map(Deployment.class::cast).findFirst().orElseThrow()
                    .getSpec().getTemplate().getSpec();
            assertThat(PodSecurityStandards.restricted(operator)).isEmpty();
            assertThat(PodSecurityStandards.level(operator)).isEqualTo("restricted");
        }
    }
}
