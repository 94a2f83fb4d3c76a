package io.railyard.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The CRD the build writes to deploy/crds, as the API server would use it: its OpenAPI schema accepts every example
 * and rejects what it can express; the CEL rules (exactly one of …) are in it, and JobValidation applies them.
 */
class CrdSchemaTest {
    private static final Path REPO = Path.of(System.getProperty("railyard.repo", ".."));
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static JsonNode crd;
    private static Schema schema;

    @BeforeAll
    static void loadCrd() throws Exception {
        crd = YAML.readTree(REPO.resolve("deploy/crds/trainingjobs.railyard.io-v1.yml").toFile());
        JsonNode openApi = crd.path("spec").path("versions").get(0).path("schema").path("openAPIV3Schema");
        schema = SchemaRegistry.withDialect(Dialects.getOpenApi30()).getSchema(openApi);
    }

    private static List<Error> validate(String yaml) throws Exception {
        return schema.validate(YAML.readTree(yaml));
    }

    @Test
    void shippedCrdIsTheOneTheBuildGenerated() throws Exception {
        Path generated = REPO.resolve("api/target/classes/META-INF/fabric8/trainingjobs.railyard.io-v1.yml");

        assertThat(Files.readString(REPO.resolve("deploy/crds/trainingjobs.railyard.io-v1.yml"))).isEqualTo(Files.readString(generated));
    }

    @ParameterizedTest
    @ValueSource(strings = {"llama70b-roce.yaml", "ib-volcano.yaml", "hostnetwork-kueue.yaml", "topology.yaml"})
    void acceptsEveryExample(String example) throws Exception {
        assertThat(validate(Files.readString(Jobs.EXAMPLES.resolve(example)))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "spec: {image: p, script: t.py, nodes: 0, gpusPerNode: 8}",
        "spec: {image: p, script: t.py, nodes: 2}",
        "spec: {script: t.py, nodes: 2, gpusPerNode: 8}",
        "spec: {image: p, script: t.py, nodes: 2, gpusPerNode: 8, masterPort: 70000}",
        "spec: {image: p, script: t.py, nodes: 2, gpusPerNode: 8, rdma: {devicesPerNode: 0}}",
        "spec: {image: p, script: t.py, nodes: 2, gpusPerNode: 8, scheduling: {scheduler: slurm}}",
        "spec: {image: p, script: t.py, nodes: 2, gpusPerNode: 8, runPolicy: {backoffLimit: -1}}",
        "spec: {image: p, script: t.py, nodes: two, gpusPerNode: 8}",
        "spec: {image: p, script: t.py, nodes: 2, gpusPerNode: 8, model: {emptyDir: true}}",
    })
    void rejectsWhatTheSchemaExpresses(String spec) throws Exception {
        assertThat(validate("apiVersion: railyard.io/v1alpha1\nkind: TrainingJob\nmetadata: {name: j}\n" + spec)).isNotEmpty();
    }

    /** Every bound the schema gives a number is one JobValidation enforces too: render never accepts what the API server refuses. */
    @Test
    void jobValidationRefusesEveryValueOutsideTheSchemasBounds() throws Exception {
        JsonNode spec = crd.path("spec").path("versions").get(0).path("schema").path("openAPIV3Schema").path("properties").path("spec");
        List<String> bounded = new java.util.ArrayList<>();
        bounds(spec, "spec", bounded);
        assertThat(bounded).contains("spec.nodes < 1", "spec.rdma.devicesPerNode > 64", "spec.preflight.minLineRatePercent > 100",
                "spec.preflight.timeoutSeconds < 10", "spec.masterPort > 65535");
        for (String bound : bounded) {
            String[] parts = bound.split(" ");
            com.fasterxml.jackson.databind.node.ObjectNode job = (com.fasterxml.jackson.databind.node.ObjectNode) YAML.readTree(
                    "{apiVersion: railyard.io/v1alpha1, kind: TrainingJob, metadata: {name: j}, spec: {image: p, script: t.py, nodes: 2, gpusPerNode: 8}}");
            com.fasterxml.jackson.databind.node.ObjectNode parent = job;
            String[] path = parts[0].split("\\.");
            for (int i = 0; i < path.length - 1; i++) {
                parent = parent.has(path[i]) ? (com.fasterxml.jackson.databind.node.ObjectNode) parent.get(path[i]) : parent.putObject(path[i]);
            }
            parent.put(path[path.length - 1], Long.parseLong(parts[2]) + (parts[1].equals("<") ? -1 : 1));

            List<String> errors = JobValidation.errors(YAML.treeToValue(job, io.railyard.api.TrainingJob.class));

            assertThat(validate(job.toString())).as(bound).isNotEmpty();
            assertThat(errors).as(bound).anyMatch(error -> error.startsWith(parts[0] + ":"));
        }
    }

    private static void bounds(JsonNode schema, String path, List<String> bounded) {
        if (schema.has("minimum")) {
            bounded.add(path + " < " + schema.path("minimum").asLong());
        }
        if (schema.has("maximum")) {
            bounded.add(path + " > " + schema.path("maximum").asLong());
        }
        schema.path("properties").properties().forEach(property -> bounds(property.getValue(), path + "." + property.getKey(), bounded));
    }

    @Test
    void carriesTheExactlyOneRulesAsCel() {
        String text = crd.toString();

        assertThat(text).contains("has(self.script) != has(self.module)")
                .contains("[has(self.claimName), has(self.hostPath), has(self.emptyDir) && self.emptyDir].filter(x, x).size() == 1");
        assertThat(crd.path("spec").path("names").path("shortNames").get(0).asText()).isEqualTo("tj");
        assertThat(crd.path("spec").path("versions").get(0).path("additionalPrinterColumns")).extracting(c -> c.path("name").asText())
                .containsExactlyInAnyOrder("Phase", "Nodes", "GPUs", "Restarts", "Spares", "RDMA", "Age");
        assertThat(crd.path("spec").path("versions").get(0).path("subresources").has("status")).isTrue();
    }
}
