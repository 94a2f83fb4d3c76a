package io.railyard.operator.model;

import static io.railyard.operator.model.Jobs.example;
import static io.railyard.operator.model.Jobs.yaml;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JobValidationTest {
    private static final String VALID = "image: pytorch\nscript: t.py\nnodes: 2\ngpusPerNode: 8\n";

    @Test
    void examplesAreValid() {
        for (String name : List.of("llama70b-roce.yaml", "ib-volcano.yaml", "hostnetwork-kueue.yaml", "topology.yaml")) {
            assertThat(JobValidation.errors(example(name))).as(name).isEmpty();
        }
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
        "image: pytorch\\nscript: t.py\\nnodes: 0\\ngpusPerNode: 8                   | spec.nodes: must be at least 1",
        "image: pytorch\\nscript: t.py\\nnodes: 2                                    | spec.gpusPerNode: is required",
        "script: t.py\\nnodes: 2\\ngpusPerNode: 8                                    | spec.image: is required",
        "image: pytorch\\nnodes: 2\\ngpusPerNode: 8                                  | spec: exactly one of script or module must be set",
        "image: pytorch\\nscript: t.py\\nmodule: m\\nnodes: 2\\ngpusPerNode: 8       | spec: exactly one of script or module must be set",
        "image: pytorch\\nscript: --help\\nnodes: 2\\ngpusPerNode: 8                 | spec.script: must not start with '-'",
        "image: pytorch\\nscript: t.py\\nnodes: 2\\ngpusPerNode: 8\\nmasterPort: 70000 | spec.masterPort: must be between 1 and 65535",
        "image: pytorch\\nscript: t.py\\nnodes: 2\\ngpusPerNode: 8\\nrdma: {devicesPerNode: 0} | spec.rdma.devicesPerNode: must be between 1 and 64",
        "image: pytorch\\nscript: t.py\\nnodes: 2\\ngpusPerNode: 8\\nrdma: {resource: rdma} | spec.rdma.resource: must be an extended resource name such as rdma/rdma",
        "image: pytorch\\nscript: t.py\\nnodes: 2\\ngpusPerNode: 8\\ndataset: {claimName: a, hostPath: /b, mountPath: /data} | spec.dataset: exactly one of claimName, hostPath or emptyDir must be set",
        "image: pytorch\\nscript: t.py\\nnodes: 2\\ngpusPerNode: 8\\nmodel: {emptyDir: true, mountPath: models} | spec.model.mountPath: must be an absolute path",
        "image: pytorch\\nscript: t.py\\nnodes: 2\\ngpusPerNode: 8\\nmodel: {emptyDir: true, mountPath: /m, loader: {command: [x]}} | spec.model.loader.image: is required",
        "image: pytorch\\nscript: t.py\\nnodes: 2\\ngpusPerNode: 8\\nresources: {memory: lots} | spec.resources.memory: 'lots' is not a Kubernetes quantity (e.g. 96, 500m, 1600Gi)",
        "image: pytorch\\nscript: t.py\\nnodes: 2\\ngpusPerNode: 8\\nscheduling: {scheduler: kueue} | spec.scheduling.queue: is required with scheduler kueue (the LocalQueue's name)",
        "image: pytorch\\nscript: t.py\\nnodes: 2\\ngpusPerNode: 8\\nrunPolicy: {backoffLimit: -1} | spec.runPolicy.backoffLimit: must be at least 0",
    })
    void eachRuleNamesItsField(String spec, String error) {
        assertThat(JobValidation.errors(yaml(spec.replace("\\n", "\n")))).containsExactly(error);
    }

    @Test
    void podNamesMustStayDnsLabels() {
        var job = yaml(VALID);
        job.getMetadata().setName("A_Job");

        assertThat(JobValidation.errors(job)).singleElement().asString().startsWith("metadata.name: must be a DNS label");
    }
}
