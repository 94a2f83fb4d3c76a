package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** render's YAML against jackson-dataformat-yaml's (SnakeYAML's emitter, lines not split), which render wrote before. */
class YamlDocumentsTest {
    private static final ObjectMapper SNAKE = new ObjectMapper(YAMLFactory.builder().disable(YAMLGenerator.Feature.SPLIT_LINES).build())
            .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);

    @Test
    void aPodWithAwkwardTextIsWrittenAsSnakeYamlWritesIt() throws Exception {
        String awkward = "say \"hi\" \\ back\nand\ttab, é ü 中文 🚀, bell \u0007 del \u007f c1 \u0085 nbsp \u00a0 bom \ufeff \u0001 \u001f "
                + "x".repeat(200) + " trailing ";
        Pod pod = new PodBuilder().withNewMetadata().withName("p-0").addToLabels("railyard.io/job-name", "p")
                .addToAnnotations("example.com/note", awkward).addToAnnotations("empty", "").endMetadata()
                .withNewSpec().addNewContainer().withName("trainer").withImage("pytorch").withCommand("bash", "-c", awkward)
                .addNewEnv().withName("NCCL_IB_HCA").withValue("=mlx5_0:1,mlx5_1:1").endEnv()
                .addNewEnv().withName("YES").withValue("yes").endEnv()
                .addNewEnv().withName("NUMBER").withValue("0012").endEnv()
                .addNewPort().withContainerPort(29500).withName("master").endPort()
                .withNewResources().addToLimits("nvidia.com/gpu", new Quantity("8")).addToRequests("memory", new Quantity("1600Gi")).endResources()
                .withNewLivenessProbe().withNewHttpGet().withPort(new IntOrString(8080)).withPath("/healthz").endHttpGet().endLivenessProbe()
                .endContainer()
                .addNewVolume().withName("dshm").withNewEmptyDir().endEmptyDir().endVolume()
                .addNewVolume().withName("rank").withNewEmptyDir().withMedium("Memory").endEmptyDir().endVolume()
                .withNodeSelector(Map.of()).withHostNetwork(true).withTerminationGracePeriodSeconds(30L)
                .endSpec().build();

        assertThat(YamlDocuments.document(pod)).isEqualTo(SNAKE.writeValueAsString(pod));
    }

    @Test
    void nestedSequencesEmptyOnesAndNullsAsSnakeYamlWritesThem() throws Exception {
        Map<String, Object> value = new java.util.LinkedHashMap<>();
        value.put("matrix", List.of(List.of(1, 2), List.of(), List.of(Map.of("a", "b"))));
        value.put("nothing", null);
        value.put("empty", Map.of());
        value.put("mixed", List.of(Map.of(), "s", 1.5, true));

        assertThat(YamlDocuments.document(value)).isEqualTo(SNAKE.writeValueAsString(value));
    }

    @Test
    void aKeyThatIsNoKubernetesNameIsQuotedAndReadsBackTheSame() throws Exception {
        Map<String, String> odd = Map.of("a: b", "c", "- dash", "d", "#hash", "e");

        String text = YamlDocuments.document(odd);

        JsonNode read = new ObjectMapper(new YAMLFactory()).readTree(text);
        assertThat(read).isEqualTo(new ObjectMapper().valueToTree(odd));
    }
}
