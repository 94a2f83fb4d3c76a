package io.railyard.fabric;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A simulated InfiniBand fabric: ibsim on a net file, OpenSM as its subnet manager through umad2sim, and the real
 * infiniband-diags run against it with ibsim-run. Each one has its own socket name and directory and stops what it started.
 */
public final class LiveFabric implements AutoCloseable {
    private static final Path UMAD2SIM = Path.of("/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so");

    private final Path dir;
    private final String socket;
    private final Process ibsim;
    private Process opensm;

    private LiveFabric(Path dir, String socket, Process ibsim) {
        this.dir = dir;
        this.socket = socket;
        this.ibsim = ibsim;
    }

    /** Starts ibsim on the net file, types the console commands (links taken down after start), then OpenSM until SUBNET UP. */
    public static LiveFabric start(Path dir, NetFile net, List<String> consoleCommands) throws IOException {
        requireSimulator();
        Path file = Files.writeString(dir.resolve("topology.net"), net.text());
        ProcessBuilder builder = new ProcessBuilder(tool("ibsim").toString(), "-s", file.toString()).directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(dir.resolve("ibsim.log").toFile());
        String socket = "railyard-it-" + UUID.randomUUID().toString().substring(0, 8);
        builder.environment().put("IBSIM_SOCKNAME", socket);
        LiveFabric started = new LiveFabric(dir, socket, builder.start());
        try {
            started.awaitLine("ibsim.log", "Network simulator ready", Duration.ofSeconds(15));
            OutputStream console = started.ibsim.getOutputStream();
            for (String command : consoleCommands) {
                console.write((command + "\n").getBytes(StandardCharsets.UTF_8));
                console.flush();
            }
            // -d2 flushes the log after each message: without it SUBNET UP is written only when OpenSM exits.
            ProcessBuilder sm = new ProcessBuilder(tool("opensm").toString(), "-d2", "-f", dir.resolve("opensm.log").toString()).directory(dir.toFile())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("opensm.stdout").toFile());
            sm.environment().putAll(Map.of("IBSIM_SOCKNAME", started.socket, "OSM_TMP_DIR", dir.toString(), "OSM_CACHE_DIR", dir.toString(),
                    "LD_PRELOAD", UMAD2SIM.toString()));
            started.opensm = sm.start();
            started.awaitLine("opensm.log", "SUBNET UP", Duration.ofSeconds(60));
            return started;
        } catch (RuntimeException | IOException e) {
            started.close();
            throw e;
        }
    }

    /** What a process needs in its environment to run the tools through ibsim-run as the host {@code simHost} sees the fabric. */
    public Map<String, String> environment(String simHost) {
        return Map.of("IBSIM_SOCKNAME", socket, "SIM_HOST", simHost);
    }

    /** A tool's standard output, run as the host {@code simHost} (an HCA's node description) sees the fabric. */
    public List<String> run(String simHost, String... tool) throws IOException, InterruptedException {
        String[] command = concat(tool("ibsim-run").toString(), tool);
        command[1] = tool(tool[0]).toString();
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().remove("LD_PRELOAD");
        builder.environment().putAll(environment(simHost));
        Process process = builder.start();
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            Assertions.fail(String.join(" ", tool) + " did not finish in 60 s");
        }
        return new String(out, StandardCharsets.UTF_8).lines().toList();
    }

    @Override
    public void close() {
        if (opensm != null) {
            opensm.destroy();
            waitFor(opensm);
        }
        try {
            ibsim.getOutputStream().write("Quit\n".getBytes(StandardCharsets.UTF_8));
            ibsim.getOutputStream().close();
        } catch (IOException e) {
            // already gone
        }
        if (!waitFor(ibsim)) {
            ibsim.destroyForcibly();
        }
    }

    private void awaitLine(String log, String text, Duration timeout) {
        await().atMost(timeout).pollInterval(Duration.ofMillis(100)).until(() -> {
            Path file = dir.resolve(log);
            if (!ibsim.isAlive()) {
                Assertions.fail("ibsim stopped: " + Files.readString(dir.resolve("ibsim.log")));
            }
            return Files.exists(file) && Files.readString(file).contains(text);
        });
    }

    private static boolean waitFor(Process process) {
        try {
            return process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static String[] concat(String first, String... rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    /** A tool on PATH or in the sbin directories Debian puts OpenSM and infiniband-diags in (a user's PATH may lack them). */
    private static Path tool(String name) {
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
        dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin"));
        return dirs.stream().filter(d -> !d.isEmpty()).map(d -> Path.of(d, name)).filter(Files::isExecutable).findFirst().orElse(Path.of(name));
    }

    /** ibsim, OpenSM and infiniband-diags are Debian packages .ci/run installs: required under CI, skipped elsewhere. */
    private static void requireSimulator() {
        boolean present = Files.isReadable(UMAD2SIM) && List.of("ibsim", "ibsim-run", "opensm", "ibnetdiscover").stream()
                .allMatch(name -> tool(name).isAbsolute());
        String message = "ibsim-utils, libumad2sim0, opensm and infiniband-diags are not installed (.ci/run installs them with apt-get)";
        if (!present && System.getenv("RAILYARD_CI") != null) {
            Assertions.fail(message);
        }
        Assumptions.assumeTrue(present, message);
    }
}
