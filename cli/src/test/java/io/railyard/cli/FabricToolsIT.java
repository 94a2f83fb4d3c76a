package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.fabric.LiveFabric;
import io.railyard.fabric.NetFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** railyard fabric without files: it runs the infiniband-diags it finds on PATH, here against ibsim through ibsim-run. */
class FabricToolsIT {
    @TempDir
    Path dir;

    @Test
    void runsTheToolsOnPathThroughTheHcaNcclIbHcaNames() throws Exception {
        NetFile net = new NetFile().switchNamed("spine-1").switchNamed("leaf-1").switchNamed("leaf-2");
        net.cable("leaf-1", 11, "spine-1", 1).cable("leaf-2", 11, "spine-1", 2);
        for (int h = 1; h <= 2; h++) {
            net.hca("node-" + h, "mlx5_0").hca("node-" + h, "mlx5_1");
            net.cable("node-" + h + "-mlx5_0", 1, "leaf-1", h).cable("node-" + h + "-mlx5_1", 1, "leaf-2", h);
        }
        net.counter("leaf-2", 2, "SymbolErrorCounter", 77);
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path argv = dir.resolve("argv.log");
        for (String tool : List.of("ibnetdiscover", "iblinkinfo", "ibqueryerrors")) {
            // What the tool was given is logged, then the real tool runs against the simulator (by its full path: ibsim-run
            // looks the command up on PATH, which would find this wrapper again).
            Path real = FabricInput.onPath(tool).orElse(Path.of("/usr/sbin", tool));
            Path wrapper = Files.writeString(bin.resolve(tool),
                    "#!/bin/sh\necho \"" + tool + " $*\" >> '" + argv + "'\nexec ibsim-run " + real + " \"$@\"\n");
            Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwxr-xr-x"));
        }

        try (LiveFabric fabric = LiveFabric.start(Files.createDirectories(dir.resolve("sim")), net, List.of())) {
            String java = ProcessHandle.current().info().command().orElse("java");
            ProcessBuilder builder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "io.railyard.cli.Railyard",
                    "fabric", "-o", "json").redirectError(dir.resolve("err.log").toFile());
            builder.environment().putAll(fabric.environment("node-1 mlx5_0"));
            builder.environment().put("PATH", bin + ":" + System.getenv("PATH"));
            builder.environment().put("NCCL_IB_HCA", "=ibsim0:1");
            Process process = builder.start();
            String out = new String(process.getInputStream().readAllBytes());

            assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(process.exitValue()).as(Files.readString(dir.resolve("err.log")) + out).isEqualTo(1);
            assertThat(out).contains("\"rails-leaf-1\"").contains("\"summary\" : \"leaf-2 port 2 (to node-2 mlx5_1 port 1): SymbolErrorCounter=77\"");
            assertThat(Files.readAllLines(argv)).containsExactly("ibnetdiscover -C ibsim0 -P 1", "iblinkinfo -C ibsim0 -P 1",
                    "ibqueryerrors -C ibsim0 -P 1");
        }
    }
}
