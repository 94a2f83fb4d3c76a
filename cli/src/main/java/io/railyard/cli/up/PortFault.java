package io.railyard.cli.up;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** A port of a sandbox's node taken down (or up again) in the node's own tree, written as the kernel shows a port's state. */
public final class PortFault {
    private PortFault() {}

    /** Writes the port's {@code state} and {@code phys_state}; returns what a user is told. */
    public static String write(Sandbox sandbox, String node, String hca, int port, boolean down) {
        int nodes = Integer.parseInt(sandbox.settings().getProperty("nodes")); // no sandbox: said before anything is looked for
        Path root = sandbox.nodeRoot(node);
        if (!Files.isDirectory(root)) {
            throw new SandboxException("no node " + node + " in the cluster of railyard up in " + sandbox.dir() + ": its nodes are rdma-0 to rdma-"
                    + (nodes - 1));
        }
        Path hcas = root.resolve("sys/class/infiniband");
        Path ports = hcas.resolve(hca).resolve("ports");
        if (!Files.isDirectory(ports)) {
            throw new SandboxException("no RDMA device " + hca + " on " + node + ": it has " + names(hcas));
        }
        Path dir = ports.resolve(String.valueOf(port));
        if (!Files.isDirectory(dir)) {
            throw new SandboxException("no port " + port + " on " + hca + " of " + node + ": it has " + names(ports));
        }
        try {
            Files.writeString(dir.resolve("state"), down ? "1: DOWN\n" : "4: ACTIVE\n");
            Files.writeString(dir.resolve("phys_state"), down ? "3: Disabled\n" : "5: LinkUp\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return down ? "port " + hca + "/" + port + " of " + node + " is DOWN: its agent marks the node RdmaPortDown, and a gang on it restarts"
                + " off it (railyard status NAME shows why); railyard up fault " + node + " " + hca + " --clear brings it back"
                : "port " + hca + "/" + port + " of " + node + " is ACTIVE again";
    }

    private static String names(Path dir) {
        try (Stream<Path> entries = Files.list(dir)) {
            return String.join(", ", entries.map(path -> path.getFileName().toString()).sorted().toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
