package io.railyard.agent;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.railyard.agent.health.NodeHealthConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The agent's configuration file: the extended resources it advertises and which ports each one holds, and how it
 * reports the node's RDMA health to the cluster ({@code nodeHealth}).
 */
public record AgentConfig(List<ResourceConfig> resources, NodeHealthConfig nodeHealth, Metrics metrics) {
    public static final String DEFAULT_RESOURCE = io.railyard.api.Names.DEFAULT_RDMA_RESOURCE;

    /**
     * The {@code metrics} section. {@code hardwareCounters: false} drops the ports' driver counters (mlx5's hw_counters:
     * ECN, CNP, retries, out-of-sequence; 15 a RoCE port), the most numerous series, and the alerts built on them.
     */
    public record Metrics(boolean hardwareCounters) {
        @JsonCreator
        public Metrics(@JsonProperty("hardwareCounters") Boolean hardwareCounters) {
            this(hardwareCounters == null || hardwareCounters);
        }
    }

    @JsonCreator
    public AgentConfig(@JsonProperty("resources") List<ResourceConfig> resources, @JsonProperty("nodeHealth") NodeHealthConfig nodeHealth,
            @JsonProperty("metrics") Metrics metrics) {
        this.resources = resources == null || resources.isEmpty() ? List.of(ResourceConfig.defaults()) : List.copyOf(resources);
        this.nodeHealth = nodeHealth == null ? NodeHealthConfig.defaults() : nodeHealth;
        this.metrics = metrics == null ? new Metrics(true) : metrics;
    }

    public AgentConfig(List<ResourceConfig> resources, NodeHealthConfig nodeHealth) {
        this(resources, nodeHealth, null);
    }

    public AgentConfig(List<ResourceConfig> resources) {
        this(resources, null, null);
    }

    /** Without a file: one resource {@code rdma/rdma} holding every InfiniBand and Ethernet (RoCE) port, node health on. */
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
        } catch (InvalidFormatException e) {
            Class<?> type = e.getTargetType();
            String expected = type.isEnum() ? "one of " + Arrays.stream(type.getEnumConstants()).map(c -> String.valueOf(c).toLowerCase(Locale.ROOT))
                    .sorted().collect(Collectors.joining(", ")) : expected(type);
            throw new ConfigException(file + ": " + path(e) + " is '" + e.getValue() + "': use " + expected);
        } catch (MismatchedInputException e) {
            throw new ConfigException(file + ": " + (e.getPath().isEmpty() ? "the file" : path(e)) + " should be " + expected(e.getTargetType()));
        } catch (JsonMappingException e) {
            String cause = e.getCause() instanceof IllegalArgumentException bad ? bad.getMessage() : e.getOriginalMessage();
            throw new ConfigException(file + ": " + cause + (e.getPath().isEmpty() ? "" : " at " + path(e)));
        } catch (JsonProcessingException e) {
            throw new ConfigException(file + ": not valid YAML at line " + e.getLocation().getLineNr() + ": "
                    + e.getOriginalMessage().lines().findFirst().orElse("cannot be parsed"));
        } catch (IOException e) {
            throw new ConfigException(file + ": " + e.getMessage().lines().findFirst().orElse("unreadable"));
        }
    }

    /** What a value of this type looks like in the file. */
    private static String expected(Class<?> type) {
        if (type == AgentConfig.class) {
            return "a mapping with a resources list (resources: [{name: rdma/rdma}]) and optionally nodeHealth and metrics";
        }
        if (type == ResourceConfig.class) {
            return "a mapping with name and optionally mode, slotsPerPort and selector";
        }
        if (type != null && (List.class.isAssignableFrom(type) || type.isArray())) {
            return "a list";
        }
        if (type == String.class) {
            return "a string";
        }
        if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
            return "a whole number";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        return "a mapping";
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
