package io.railyard.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A KUBECONFIG list merged as kubectl merges it: files that do not exist are skipped; a cluster, context or user is
 * taken from the first file that names it, and so is current-context; relative certificate and key paths are
 * resolved against the file they are written in.
 */
final class KubeconfigMerge {
    private static final Map<String, String> ENTRIES = Map.of("clusters", "cluster", "contexts", "context", "users", "user");
    private static final List<String> FILE_FIELDS = List.of("certificate-authority", "client-certificate", "client-key", "tokenFile");

    private KubeconfigMerge() {}

    /** The merged kubeconfig as YAML; null when none of the files exists. */
    static String merge(List<Path> files) throws IOException {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        ObjectNode merged = yaml.createObjectNode().put("apiVersion", "v1").put("kind", "Config");
        Set<String> seen = new HashSet<>();
        boolean any = false;
        for (Path file : files) {
            if (!Files.exists(file)) {
                continue;
            }
            any = true;
            String text = Files.readString(file);
            JsonNode config = text.isBlank() ? yaml.createObjectNode() : yaml.readTree(text);
            if (!config.isObject()) {
                throw new IOException(file + " is not a kubeconfig (a YAML mapping)");
            }
            if (!merged.has("current-context") && config.hasNonNull("current-context") && !config.path("current-context").asText().isEmpty()) {
                merged.put("current-context", config.path("current-context").asText());
            }
            for (Map.Entry<String, String> kind : ENTRIES.entrySet()) {
                ArrayNode into = merged.has(kind.getKey()) ? (ArrayNode) merged.get(kind.getKey()) : merged.putArray(kind.getKey());
                for (JsonNode entry : config.path(kind.getKey())) {
                    if (entry.isObject() && seen.add(kind.getKey() + "/" + entry.path("name").asText())) {
                        into.add(absolute((ObjectNode) entry.deepCopy(), kind.getValue(), file));
                    }
                }
            }
        }
        return any ? yaml.writeValueAsString(merged) : null;
    }

    private static ObjectNode absolute(ObjectNode entry, String body, Path file) {
        if (entry.get(body) instanceof ObjectNode fields) {
            for (String field : FILE_FIELDS) {
                if (fields.hasNonNull(field) && !Path.of(fields.get(field).asText()).isAbsolute()) {
                    fields.put(field, file.toAbsolutePath().getParent().resolve(fields.get(field).asText()).toString());
                }
            }
        }
        return entry;
    }
}
