package io.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The API server itself refuses an invalid TrainingJob with the field named, from the CRD of deploy/crds. */
@ExtendWith(RealCluster.class)
@Order(2)
class ValidationIT {

    @Test
    void aNegativeCountIsRefusedByTheApiServerNamingTheField(Installation railyard) {
        String job = Jobs.yaml(railyard.jobNamespace("validation"), "negative", 2, "validation").replace("nodes: 2", "nodes: -1");
        KubernetesClientException refused = create(railyard, job);
        assertThat(refused.getCode()).isEqualTo(422);
        assertThat(refused.getStatus().getMessage()).contains("spec.nodes").contains("greater than or equal to");
    }

    @Test
    void aValueOutsideAnEnumIsRefusedNamingTheFieldAndTheValuesAllowed(Installation railyard) {
        String job = Jobs.yaml(railyard.jobNamespace("validation"), "enum", 2, "validation").replace("scheduler: default", "scheduler: slurm");
        KubernetesClientException refused = create(railyard, job);
        assertThat(refused.getCode()).isEqualTo(422);
        assertThat(refused.getStatus().getMessage()).contains("spec.scheduling.scheduler").contains("\"slurm\"").contains("\"volcano\"");
    }

    @Test
    void anUnknownFieldIsRefusedByStrictFieldValidationAsKubectlAsks(Installation railyard) {
        String job = Jobs.yaml(railyard.jobNamespace("validation"), "unknown", 2, "validation").replace("gpusPerNode: 8", "gpusPerNode: 8\n  gpuPerNode: 8");
        Processes.Result created = railyard.cluster.kubectl(job, "create", "-f", "-");
        assertThat(created.exitCode()).isNotZero();
        assertThat(created.err()).contains("unknown field \"spec.gpuPerNode\"");
    }

    @Test
    void submitShowsTheApiServersRefusalAsOneLineAndExits2(Installation railyard) {
        // a label value the API server refuses: submit's own checks leave the job's metadata but its name to the server
        String job = Jobs.yaml(railyard.jobNamespace("validation"), "labelled", 2, "validation")
                .replace("  namespace: validation", "  namespace: validation\n  labels:\n    team: \"research & ops\"");
        Processes.Result submitted = RailyardProcess.run(railyard.cluster, job, "submit", "-f", "-");
        assertThat(submitted.exitCode()).isEqualTo(2);
        List<String> errors = submitted.err().lines().filter(line -> !line.startsWith("submit: warning:")).toList();
        assertThat(errors).singleElement().asString().startsWith("submit: cannot create TrainingJob validation/labelled: the API server refused it:")
                .contains("metadata.labels").contains("research & ops").doesNotContain("Exception").doesNotContain("Status(");
    }

    private static KubernetesClientException create(Installation railyard, String yaml) {
        GenericKubernetesResource job = Serialization.unmarshal(yaml, GenericKubernetesResource.class);
        return catchThrowableOfType(KubernetesClientException.class, () -> railyard.cluster.admin.resource(job).create());
    }
}
