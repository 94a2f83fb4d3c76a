package io.railyard.cli;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.railyard.fabric.FabricShape;
import io.railyard.fabric.SchedulerObjects;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code railyard fabric --shape-file FILE}: the shape of a fabric ibnetdiscover cannot see (RoCE), as the cluster's
 * operator writes it: {@code shape} (rail-optimized, fat-tree, single-switch or mixed), {@code tiers} of switches, and
 * the {@code nodes} it holds (examples/fabric/roce-shape.yaml).
 */
record FabricShapeFile(FabricShape shape, List<String> nodes) {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()).enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private record Written(String shape, Integer tiers, List<String> nodes) {}

    static FabricShapeFile read(Path file) {
        Written written;
        try {
            written = YAML.readValue(file.toFile(), Written.class);
        } catch (IOException e) {
            throw new Railyard.UsageException("--shape-file " + file + ": " + String.valueOf(e.getMessage()).lines().findFirst().orElse("")
                    + " (it holds shape, tiers and nodes)");
        }
        if (written == null || written.shape() == null || written.tiers() == null || written.nodes() == null || written.nodes().isEmpty()) {
            throw new Railyard.UsageException("--shape-file " + file + " needs shape, tiers and nodes (a list of node names)");
        }
        if (written.tiers() < 1 || written.tiers() > 5) {
            throw new Railyard.UsageException("--shape-file " + file + ": tiers " + written.tiers() + " is not 1 to 5 tiers of switches");
        }
        FabricShape.Kind kind;
        try {
            kind = FabricShape.Kind.of(written.shape());
        } catch (IllegalArgumentException e) {
            throw new Railyard.UsageException("--shape-file " + file + ": " + e.getMessage());
        }
        return new FabricShapeFile(new FabricShape(kind, written.tiers(), "as " + file.getFileName() + " says"), List.copyOf(written.nodes()));
    }

    /** Each node's shape labels. */
    Map<String, Map<String, String>> labels() {
        Map<String, Map<String, String>> labels = new LinkedHashMap<>();
        nodes.forEach(node -> labels.put(node, SchedulerObjects.shapeLabels(shape)));
        return labels;
    }
}
