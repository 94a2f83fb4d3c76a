package io.railyard.agent;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/** The agent's configuration file: the extended resources it advertises and which ports each one holds. */
public record AgentConfig(List<ResourceConfig> resources) {
    public static final String DEFAULT_RESOURCE = io.railyard.api.Names.DEFAULT_RDMA_RESOURCE;

    @JsonCreator
    public AgentConfig(@JsonProperty("resources") List<ResourceConfig> resources) {
        this.resources = resources == null || resources.isEmpty() ? List.of(ResourceConfig.defaults()) : List.copyOf(resources);
    }

    /** Without a file: one resource {@code rdma/rdma} holding every InfiniBand and Ethernet (RoCE) port. */
    public static AgentConfig defaults() {
        return new AgentConfig(List.of());
    }

    /** Reads a YAML file; a file that does not parse or names an unknown key fails with a message naming both. */
    public static AgentConfig load(Path file) {
        ObjectMapper mapper = new ObjectMapper(new YAMLFactory())
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
        try {
            AgentConfig config = mapper.readValue(Files.readString(file), AgentConfig.class);
            return config == null ? defaults() : config;
        } catch (NoSuchFileException e) {
            throw new ConfigException(file + ": no such file");
        } catch (UnrecognizedPropertyException e) {
            throw new ConfigException(file + ": unknown key '" + e.getPropertyName() + "' at " + path(e)
                    + " (known: " + e.getKnownPropertyIds().stream().map(String::valueOf).sorted().collect(Collectors.joining(", ")) + ")");
        } catch (JsonMappingException e) {
            String cause = e.getCause() instanceof IllegalArgumentException bad ? bad.getMessage() : e.getOriginalMessage();
            throw new ConfigException(file + ": " + cause + (e.getPath().isEmpty() ? "" : " at " + path(e)));
        } catch (IOException e) {
            throw new ConfigException(file + ": " + e.getMessage().lines().findFirst().orElse("unreadable"));
        }
    }

    private static String path(JsonMappingException e) {
        return e.getPath().stream()
                .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
                .collect(Collectors.joining(".")).replace(".[", "[");
    }

    /** A configuration the agent cannot run with; the message names the file and the key. */
    public static final class ConfigException extends RuntimeException {
        public ConfigException(String message) {
            super(message);
        }
    }
}
