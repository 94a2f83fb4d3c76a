package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/architecture.md's module graph is the POMs' own, and it runs one way down the table. */
class ArchitectureTest {
    private static final Path REPO = Path.of(System.getProperty("railyard.repo", "..")).toAbsolutePath().normalize();
    private static final Pattern MODULE = Pattern.compile("<module>(\\w+)</module>");
    private static final Pattern DEPENDENCY = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL);
    private static final Pattern RAILYARD_ARTIFACT = Pattern.compile("<artifactId>railyard-(\\w+)</artifactId>");
    private static final Pattern ROW = Pattern.compile("^\\| `(\\w+)` \\| (.*) \\|$");

    /** Each module's compile-scope dependencies on other modules, from its POM. */
    private static Map<String, TreeSet<String>> fromPoms() throws IOException {
        Map<String, TreeSet<String>> graph = new LinkedHashMap<>();
        Matcher modules = MODULE.matcher(Files.readString(REPO.resolve("pom.xml")));
        while (modules.find()) {
            String module = modules.group(1);
            TreeSet<String> needs = new TreeSet<>();
            Matcher dependencies = DEPENDENCY.matcher(Files.readString(REPO.resolve(module).resolve("pom.xml")));
            while (dependencies.find()) {
                String dependency = dependencies.group(1);
                Matcher artifact = RAILYARD_ARTIFACT.matcher(dependency);
                if (artifact.find() && !dependency.contains("<scope>test</scope>") && !dependency.contains("<type>test-jar</type>")) {
                    needs.add(artifact.group(1));
                }
            }
            graph.put(module, needs);
        }
        return graph;
    }

    /** The table under "The module graph", in its order. */
    private static Map<String, TreeSet<String>> fromDocs() throws IOException {
        Map<String, TreeSet<String>> graph = new LinkedHashMap<>();
        boolean inSection = false;
        for (String line : Files.readAllLines(REPO.resolve("docs/architecture.md"))) {
            if (line.startsWith("## ")) {
                inSection = line.equals("## The module graph");
            }
            Matcher row = ROW.matcher(line);
            if (inSection && row.matches()) {
                TreeSet<String> needs = new TreeSet<>();
                if (!row.group(2).equals("none")) {
                    for (String name : row.group(2).split(",\\s*")) {
                        needs.add(name.replace("`", "").strip());
                    }
                }
                graph.put(row.group(1), needs);
            }
        }
        return graph;
    }

    @Test
    void theDocumentedGraphIsThePomsAndPointsDownTheTable() throws IOException {
        Map<String, TreeSet<String>> documented = fromDocs();
        assertThat(documented).isEqualTo(fromPoms());
        List<String> order = new ArrayList<>(documented.keySet());
        documented.forEach((module, needs) -> needs.forEach(need -> assertThat(order.indexOf(need)).as(module + " -> " + need)
                .isLessThan(order.indexOf(module))));
    }
}
