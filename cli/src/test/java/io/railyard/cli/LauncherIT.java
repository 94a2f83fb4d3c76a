package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's two commands as a newcomer runs them: ./railyard through a symlink on PATH, ./mvnw without JAVA_HOME. */
class LauncherIT {
    private static final Path REPO = Path.of(System.getProperty("railyard.repo", "..")).toAbsolutePath().normalize();

    @TempDir
    Path dir;

    private static String run(Path directory, Map<String, String> environment, String... argv) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(List.of(argv)).directory(directory.toFile()).redirectErrorStream(true);
        builder.environment().putAll(environment);
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor(300, TimeUnit.SECONDS)).isTrue();
        return process.exitValue() + "\n" + out;
    }

    @Test
    void railyardStartsThroughASymlinkOnPath() throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Files.createSymbolicLink(bin.resolve("railyard"), REPO.resolve("railyard"));

        // the shell looks railyard up on the PATH given here (Java would look it up on the test's own)
        String out = run(dir, Map.of("PATH", bin + ":" + System.getenv("PATH")), "sh", "-c", "exec railyard \"$@\"", "sh",
                "doctor", "--root", REPO.resolve("examples/nodes/roce-8gpu").toString(), "--no-kubernetes");

        assertThat(out).startsWith("0\n").contains("railyard doctor: gpu-roce-01");
    }

    @Test
    void fabricRunsWithACacheOfItsOwnAndReportsWhatTheCommandReports() throws Exception {
        String fabric = REPO.resolve("testdata/ibsim/fattree/ibnetdiscover.txt").toString();

        String out = run(REPO, Map.of(), "./railyard", "fabric", "--ibnetdiscover", fabric, "-o", "json");

        assertThat(out).isEqualTo("0\n" + CommandRun.of("fabric", "--ibnetdiscover", fabric, "-o", "json").out());
        assertThat(REPO.resolve("cli/target/railyard-fabric.aot")).isNotEmptyFile();
    }

    @Test
    void theMavenWrapperFindsJdk25WhenJavaHomeIsAnother() throws Exception {
        Path older = Path.of("/usr/lib/jvm").toFile().exists()
                ? Files.list(Path.of("/usr/lib/jvm")).filter(p -> Files.isExecutable(p.resolve("bin/java")) && !p.toString().contains("25"))
                        .findFirst().orElse(dir) : dir;

        String out = run(REPO, Map.of("JAVA_HOME", older.toString()), "./mvnw", "--version");

        assertThat(out).startsWith("0\n").containsPattern("Java version: 2[5-9]");
    }
}
