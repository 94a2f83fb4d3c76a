package io.railyard.operator.model;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.railyard.api.TrainingJob;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

/** TrainingJobs for tests: the shipped examples, or YAML written in the test. */
final class Jobs {
    static final Path EXAMPLES = Path.of(System.getProperty("railyard.repo", "..")).resolve("examples/trainingjobs");
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()).enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private Jobs() {}

    static TrainingJob example(String name) {
        try {
            return YAML.readValue(EXAMPLES.resolve(name).toFile(), TrainingJob.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static TrainingJob yaml(String spec) {
        try {
            return YAML.readValue("""
                    apiVersion: railyard.io/v1alpha1
                    kind: TrainingJob
                    metadata: {name: job, namespace: ns}
                    spec:
                    """ + spec.indent(2), TrainingJob.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<HasMetadata> render(TrainingJob job) {
        return TrainingJobModel.desired(job, OperatorDefaults.STANDARD).objects();
    }

    static List<Pod> pods(TrainingJob job) {
        return render(job).stream().filter(Pod.class::isInstance).map(Pod.class::cast).toList();
    }
}
