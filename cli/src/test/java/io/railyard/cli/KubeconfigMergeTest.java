package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeconfigMergeTest {
    @TempDir
    Path dir;

    @Test
    void theFirstFileToNameAnEntryOrTheCurrentContextWinsAndRelativePathsStayTheirFiles() throws Exception {
        Files.createDirectories(dir.resolve("team"));
        Path first = Files.writeString(dir.resolve("team/config"), """
                current-context: team
                clusters:
                - name: prod
                  cluster: {server: https://prod.example:6443, certificate-authority: ca.crt}
                contexts:
                - name: team
                  context: {cluster: prod, user: alice}
                """);
        Path second = Files.writeString(dir.resolve("config"), """
                current-context: other
                clusters:
                - name: prod
                  cluster: {server: https://shadowed.example:6443}
                - name: lab
                  cluster: {server: https://lab.example:6443}
                users:
                - name: alice
                  user: {client-certificate: certs/alice.crt, client-key: /etc/keys/alice.key}
                """);

        JsonNode merged = new ObjectMapper(new YAMLFactory()).readTree(KubeconfigMerge.merge(List.of(dir.resolve("none"), first, second)));

        assertThat(merged.path("current-context").asText()).isEqualTo("team");
        assertThat(merged.path("clusters")).extracting(c -> c.path("name").asText() + " " + c.path("cluster").path("server").asText())
                .containsExactly("prod https://prod.example:6443", "lab https://lab.example:6443");
        assertThat(merged.path("clusters").get(0).path("cluster").path("certificate-authority").asText())
                .isEqualTo(dir.resolve("team/ca.crt").toString());
        assertThat(merged.path("users").get(0).path("user").path("client-certificate").asText()).isEqualTo(dir.resolve("certs/alice.crt").toString());
        assertThat(merged.path("users").get(0).path("user").path("client-key").asText()).isEqualTo("/etc/keys/alice.key");
    }

    @Test
    void noFileThatExistsIsNoKubeconfig() throws Exception {
        assertThat(KubeconfigMerge.merge(List.of(dir.resolve("a"), dir.resolve("b")))).isNull();
    }
}
