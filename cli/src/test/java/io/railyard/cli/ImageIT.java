package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The image as the Dockerfile builds it, built with buildah (no Docker engine here) on a stand-in base
 * (tools/build-image), and run: the commands a cluster runs from it. Required under CI, skipped elsewhere without
 * buildah, debootstrap or root.
 */
class ImageIT {
    private static final Path REPO = Path.of(System.getProperty("railyard.repo", "..")).toAbsolutePath().normalize();
    private static final Path DIR = REPO.resolve("cli/target/image");
    private static final String TAG = "localhost/railyard:it";
    private static final String JAR = "/opt/railyard/railyard.jar";
    /** The example node copied into the container at the path it has outside, so that both doctors report the same root. */
    private static final Path TREE = REPO.resolve("examples/nodes/roce-8gpu");
    private static String container;

    private record Result(int exitCode, String out) {}

    private static List<String> storage() {
        return List.of("--storage-driver", "vfs", "--root", DIR.resolve("storage").toString(), "--runroot", DIR.resolve("run").toString());
    }

    private static Result run(long timeoutSeconds, List<String> argv) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(argv).directory(REPO.toFile()).redirectErrorStream(true).start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return e.toString();
            }
        });
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            Assertions.fail(String.join(" ", argv) + " did not finish in " + timeoutSeconds + " s");
        }
        return new Result(process.exitValue(), out.join());
    }

    private static Result buildah(String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of("buildah"));
        argv.addAll(storage());
        argv.addAll(List.of(args));
        return run(300, argv);
    }

    /** A command inside the image's container, as its default user, with the image's environment. */
    private static Result inside(String... command) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("run", "--isolation", "chroot", container, "--"));
        args.addAll(List.of(command));
        return buildah(args.toArray(String[]::new));
    }

    private static void require(String tool) {
        boolean found = Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .anyMatch(dir -> Files.isExecutable(Path.of(dir, tool)));
        boolean root = "root".equals(System.getProperty("user.name"));
        if (!found || !root) {
            String message = (found ? "building the image needs root" : tool + " is not on PATH") + " (.ci/run installs buildah and debootstrap)";
            if (System.getenv("RAILYARD_CI") != null) {
                Assertions.fail(message);
            }
            Assumptions.abort(message);
        }
    }

    @BeforeAll
    static void build() throws Exception {
        require("buildah");
        require("debootstrap");
        long start = System.nanoTime();
        Result built = run(600, List.of(REPO.resolve("tools/build-image").toString(), DIR.toString(), TAG));
        long seconds = (System.nanoTime() - start) / 1_000_000_000;
        assertThat(built.exitCode()).as(built.out()).isZero();
        String size = buildah("images", "--format", "{{.Size}}", TAG).out().strip();
        String report = "image " + TAG + ": built in " + seconds + " s (the stand-in base included when it was not cached), " + size;
        System.out.println(report);
        Files.writeString(DIR.resolve("report.txt"), report + "\n");
        Result from = buildah("from", "--pull=never", TAG);
        assertThat(from.exitCode()).as(from.out()).isZero();
        container = from.out().strip().lines().reduce((a, b) -> b).orElseThrow();
        Result copied = buildah("copy", container, TREE.toString(), TREE.toString());
        assertThat(copied.exitCode()).as(copied.out()).isZero();
    }

    @AfterAll
    static void remove() throws Exception {
        if (container != null) {
            buildah("rm", container);
        }
    }

    @Test
    void railyardInTheImageIsThisVersion() throws Exception {
        Result version = inside("java", "-jar", JAR, "--version");

        assertThat(version.out()).contains("railyard " + System.getProperty("railyard.version"));
    }

    @Test
    void theDoctorInTheImageSaysWhatItSaysOutside() throws Exception {
        Result image = inside("java", "-jar", JAR, "doctor", "--root", TREE.toString(), "--no-kubernetes", "-o", "json");
        CommandRun host = CommandRun.of("doctor", "--root", TREE.toString(), "--no-kubernetes", "-o", "json");

        ObjectMapper json = new ObjectMapper();
        JsonNode inImage = json.readTree(image.out().substring(image.out().indexOf('{')));
        assertThat(inImage).isEqualTo(json.readTree(host.out()));
        assertThat(image.exitCode()).isEqualTo(host.exitCode());
    }

    @Test
    void theFabricAndMeasuringToolsArePresentAndTheUserIsNotRoot() throws Exception {
        assertThat(inside("sh", "-c", "for tool in ib_write_bw ib_write_lat iperf3 ibnetdiscover iblinkinfo ibqueryerrors; do command -v $tool; done")
                .out().lines()).hasSize(6).allMatch(line -> line.startsWith("/usr/"));
        assertThat(inside("id", "-u").out().strip()).isEqualTo("65532");
    }

    @Test
    void theAgentsJvmFlagsUseTheImagesCacheAndTheExporterAnswers() throws Exception {
        String flags = Files.readAllLines(REPO.resolve("tools/agent-jvm-options")).stream().filter(line -> !line.startsWith("#"))
                .findFirst().orElseThrow() + " -XX:AOTCache=/opt/railyard/agent.aot -Xlog:aot -Xlog:class+load";
        // a fixed script, no value from outside in it: the exporter on the copied tree, one scrape, stopped
        String script = "java -jar " + JAR + " exporter --root \"$1\" --listen 127.0.0.1:19402 & pid=$!; "
                + "for i in $(seq 100); do curl -sf 127.0.0.1:19402/metrics && break; sleep 0.2; done; kill $pid; wait $pid";
        Result scraped = buildah("run", "--isolation", "chroot", "--env", "JAVA_TOOL_OPTIONS=" + flags, container, "--",
                "sh", "-c", script, "sh", TREE.toString());

        assertThat(scraped.out()).contains("Opened AOT cache /opt/railyard/agent.aot", "Using AOT-linked classes: true")
                .doesNotContain("Unable to use AOT cache");
        assertThat(scraped.out().lines()).as("Railyard's own classes come from the cache, linked")
                .anyMatch(line -> line.endsWith("io.railyard.cli.ExporterCommand source: shared objects file"));
        assertThat(scraped.out().lines()).as("the JVM's warnings about the cache (a flag or class path mismatch)")
                .noneMatch(line -> line.matches("\\[[^]]*\\]\\[(warning|error)\\]\\[(aot|cds).*"));
        assertThat(scraped.out()).contains("railyard_rdma_state_id{", "railyard_rdma_port_data_transmitted_bytes_total{");
    }
}
