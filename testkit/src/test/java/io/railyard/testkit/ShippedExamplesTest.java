package io.railyard.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The trees in examples/nodes are exactly what the generator writes: regenerate them rather than edit them. */
class ShippedExamplesTest {
    private static final Path SHIPPED = Path.of(System.getProperty("railyard.repo", "..")).resolve("examples/nodes");

    @Test
    void shippedExamplesMatchTheGenerator(@TempDir Path dir) throws IOException {
        ExampleNodes.writeAll(dir);

        Map<String, String> shipped = snapshot(SHIPPED);
        Map<String, String> generated = snapshot(dir);
        Set<String> differing = new TreeSet<>(shipped.keySet());
        differing.addAll(generated.keySet());
        differing.removeIf(path -> Objects.equals(shipped.get(path), generated.get(path)));

        assertThat(differing)
                .as("examples/nodes differs from the generator: run java -cp testkit/target/classes "
                        + "io.railyard.testkit.ExampleNodes examples/nodes")
                .isEmpty();
        assertThat(shipped).hasSizeGreaterThan(1000);
    }

    @Test
    void classEntriesAreRelativeSymlinksIntoDevices() throws IOException {
        Path link = SHIPPED.resolve("roce-8gpu/sys/class/infiniband/mlx5_1");

        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(Files.readSymbolicLink(link).toString()).startsWith("../../devices/pci0000:10/");
        assertThat(Files.readSymbolicLink(link.resolve("device")).toString()).isEqualTo("../../../0000:15:00.0");
    }

    /** Every path under the root: a file's content, or a symlink's target. */
    private static Map<String, String> snapshot(Path root) throws IOException {
        Map<String, String> entries = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path path : walk.toList()) {
                String key = root.relativize(path).toString();
                if (Files.isSymbolicLink(path)) {
                    entries.put(key, "-> " + Files.readSymbolicLink(path));
                } else if (Files.isRegularFile(path)) {
                    entries.put(key, Files.readString(path));
                }
            }
        }
        return entries;
    }
}
