package io.railyard.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class HostPathsTest {
    private static final String VOLUMES = """
            {image: p, script: t.py, nodes: 1, gpusPerNode: 8,
             dataset: {hostPath: /mnt/lustre/datasets/pile, mountPath: /data},
             model: {hostPath: /mnt/lustre/../../etc, mountPath: /model},
             podTemplate: {volumes: [{name: scratch, hostPath: {path: /scratch/job}}, {name: root, hostPath: {path: /}}, {name: e, emptyDir: {}}]}}
            """;

    @Test
    void noHostPathIsAllowedByDefault() {
        assertThat(HostPaths.disallowed(Jobs.yaml(VOLUMES), List.of())).containsExactly(
                "spec.dataset.hostPath: /mnt/lustre/datasets/pile is not under the operator's --allowed-host-paths (none allowed): "
                        + "use a PersistentVolumeClaim, or have the operator started with a prefix that covers it",
                "spec.model.hostPath: /mnt/lustre/../../etc is not under the operator's --allowed-host-paths (none allowed): "
                        + "use a PersistentVolumeClaim, or have the operator started with a prefix that covers it",
                "spec.podTemplate.volumes[0].hostPath.path: /scratch/job is not under the operator's --allowed-host-paths (none allowed): "
                        + "use a PersistentVolumeClaim, or have the operator started with a prefix that covers it",
                "spec.podTemplate.volumes[1].hostPath.path: / is not under the operator's --allowed-host-paths (none allowed): "
                        + "use a PersistentVolumeClaim, or have the operator started with a prefix that covers it");
    }

    @Test
    void aPrefixCoversItsOwnDirectoriesOnlyWithDotDotResolved() {
        List<String> problems = HostPaths.disallowed(Jobs.yaml(VOLUMES), List.of("/mnt/lustre", "/scratch"));

        assertThat(problems).extracting(problem -> problem.substring(0, problem.indexOf(':')))
                .containsExactly("spec.model.hostPath", "spec.podTemplate.volumes[1].hostPath.path");
        assertThat(HostPaths.allowed("/mnt/lustre", List.of("/mnt/lustre"))).isTrue();
        assertThat(HostPaths.allowed("/mnt/lustre-other/x", List.of("/mnt/lustre"))).as("whole path elements").isFalse();
        assertThat(HostPaths.allowed("/mnt/lustre/./a/../b", List.of("/mnt/lustre/"))).isTrue();
        assertThat(HostPaths.allowed("mnt/lustre", List.of("/mnt/lustre"))).as("relative").isFalse();
    }

    @Test
    void renderWarnsWhereTheOperatorWouldRefuse() {
        assertThat(TrainingJobModel.desired(Jobs.example("ib-volcano.yaml"), OperatorDefaults.STANDARD).warnings())
                .anyMatch(warning -> warning.startsWith("spec.dataset.hostPath: /mnt/lustre/datasets/pile is not under")
                        && warning.endsWith("the operator refuses the job"));
        assertThat(TrainingJobModel.desired(Jobs.example("ib-volcano.yaml"), new OperatorDefaults("img", "rdma/rdma", List.of("/mnt/lustre")))
                .warnings()).noneMatch(warning -> warning.contains("hostPath"));
    }
}
