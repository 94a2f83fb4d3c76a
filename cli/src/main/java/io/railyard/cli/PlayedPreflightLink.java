package io.railyard.cli;

import io.railyard.cli.up.PreflightHelper;
import io.railyard.node.NodeDiscovery;
import io.railyard.node.NodeInventory;
import io.railyard.node.Port;
import io.railyard.node.Rate;
import io.railyard.operator.preflight.PreflightPods;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import picocli.CommandLine;

/**
 * The sandbox's preflight gate: {@code railyard preflight-link} itself, in this process, with the arguments the operator
 * gave the pod, on the node's tree (its ports' line rates and states), with each ib_write_bw played from a real output
 * of {@code testdata/perftest}: a healthy run at the port's line rate, or, where the port is not ACTIVE, the client's
 * failure to reach its peer. Everything after the measurement (framing, judging, the termination message) is the real
 * helper's.
 */
final class PlayedPreflightLink implements PreflightHelper {
    private static final String WAITING = """
            ************************************
            * Waiting for client to connect... *
            ************************************
            """;

    private final Path perftest;

    PlayedPreflightLink(Path home) {
        this.perftest = home.resolve("testdata/perftest");
    }

    @Override
    public Outcome run(List<String> args, Path nodeRoot, int devices) {
        NodeInventory node = NodeDiscovery.discover(nodeRoot);
        List<Port> ports = node.ports().stream().sorted(Port.BY_DEVICE).limit(devices).toList();
        try {
            Path message = Files.createTempFile("railyard-preflight", ".json");
            try {
                List<String> argv = new ArrayList<>(args);
                argv.add("--root=" + nodeRoot);
                argv.add("--nccl-ib-hca==" + ports.stream().map(Port::id).collect(Collectors.joining(",")));
                ports.stream().flatMap(port -> port.ncclGidIndex().stream().boxed()).findFirst().ifPresent(gid -> argv.add("--gid-index=" + gid));
                argv.add("--termination-log=" + message);
                StringWriter log = new StringWriter();
                PrintWriter out = new PrintWriter(log, true);
                int exit = Railyard.run(out, out, factory(node), argv.toArray(String[]::new));
                return new Outcome(exit, Files.readString(message), log.toString());
            } finally {
                Files.deleteIfExists(message);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private CommandLine.IFactory factory(NodeInventory node) {
        return new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> type) throws Exception {
                return type == PreflightLinkCommand.class ? type.cast(new PreflightLinkCommand((role, argv, deadline) -> play(node, role, argv)))
                        : CommandLine.defaultFactory().create(type);
            }
        };
    }

    /** One ib_write_bw as the node's port would answer it: {@code -d HCA -i PORT ...}, a client's last argument its peer. */
    ToolRun play(NodeInventory node, String role, List<String> argv) throws IOException {
        if (role.equals(PreflightPods.SERVER)) {
            return new ToolRun(WAITING, "0");
        }
        Optional<Port> port = node.hca(argv.get(argv.indexOf("-d") + 1)).flatMap(hca -> hca.port(Integer.parseInt(argv.get(argv.indexOf("-i") + 1))));
        if (port.isEmpty() || !port.get().isActive()) {
            return new ToolRun(Files.readString(perftest.resolve("ib-write-bw-connect-failed-01.txt")), "1");
        }
        double gbps = port.get().rate().map(Rate::gigabitsPerSecond).orElse(0.0);
        String output = gbps >= 400 ? "ib-write-bw-duration-ib-392gbits-edited-01.txt"
                : gbps >= 200 ? "ib-write-bw-duration-ib-198gbits-edited-01.txt" : "ib-write-bw-duration-roce-95gbits-edited-01.txt";
        return new ToolRun(Files.readString(perftest.resolve(output)), "0");
    }
}
