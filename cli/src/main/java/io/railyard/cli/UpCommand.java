package io.railyard.cli;

import io.railyard.cli.up.Sandbox;
import io.railyard.cli.up.SandboxException;
import io.railyard.cli.up.SandboxUp;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code railyard up}: Railyard on a real control plane on this machine, with simulated RDMA nodes, in one command. */
@Command(
        name = "up",
        mixinStandardHelpOptions = true,
        subcommands = {UpFaultCommand.class, UpWorkloadsCommand.class},
        description = {"Start a local Kubernetes (the real control plane, built once from the Go module proxy; KWOK nodes), install"
                + " Railyard on it as its README does, and run a node agent for each node on its own copy of an examples/nodes tree.",
                "Ends with the KUBECONFIG to export; railyard down takes it all away. Nothing listens beyond 127.0.0.1."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:the cluster is up", "1:a part did not start (the message names its log)", "2:usage error"})
final class UpCommand implements Callable<Integer> {
    /** The gang schedulers this command starts beside kube-scheduler; the shipped examples name both. */
    static final List<String> SCHEDULERS = List.of("volcano", "kueue");

    @Spec
    CommandSpec spec;

    @Option(names = "--nodes", defaultValue = "3", description = "How many nodes (default: ${DEFAULT-VALUE}: a 2-node job and a spare).")
    int nodes;

    @Option(names = "--node-shape", defaultValue = "ib-8gpu", description = "The host tree of examples/nodes each node is (default: ${DEFAULT-VALUE});"
            + " its trainers log a real NCCL log of that link layer (RoCE's: one where GPUDirect RDMA was off).")
    String shape;

    @Option(names = "--scheduler", defaultValue = "volcano,kueue", split = ",",
            description = "The gang schedulers beside kube-scheduler, each built once beside the control plane: volcano, kueue, both,"
                    + " or none (default: ${DEFAULT-VALUE}, as the shipped examples name them).")
    List<String> schedulers;

    @Option(names = "--run-seconds", defaultValue = "30", description = "How long each trainer runs before it exits 0 (default: ${DEFAULT-VALUE}).")
    long runSeconds;

    @Option(names = "--dir", description = "Where the cluster's state goes (default: ~/.cache/railyard/up).")
    Path dir;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (nodes < 1 || nodes > 64) {
            throw new Railyard.UsageException("--nodes " + nodes + " is out of range: give 1 to 64");
        }
        if (runSeconds < 1) {
            throw new Railyard.UsageException("--run-seconds " + runSeconds + " is too short: give 1 or more");
        }
        List<String> extras = schedulers.equals(List.of("none")) ? List.of() : schedulers.stream().distinct().toList();
        for (String scheduler : extras) {
            if (!SCHEDULERS.contains(scheduler)) {
                throw new Railyard.UsageException("--scheduler " + scheduler + " is not one this command starts: volcano, kueue, volcano,kueue or none"
                        + (scheduler.equals("kubernetes") ? " (kube-scheduler always runs; its own gangs are not in railyard up yet)" : ""));
            }
        }
        try {
            SandboxUp up = new SandboxUp(UpCommand.home(), sandbox(dir), message -> {
                err.println("up: " + message);
                err.flush();
            });
            SandboxUp.Started started = up.start(new SandboxUp.Settings(nodes, shape, extras, Duration.ofSeconds(runSeconds)));
            out.printf("railyard up: %d node%s of %s, gang schedulers %s, in %d s%n", nodes, nodes == 1 ? "" : "s", shape,
                    extras.isEmpty() ? "none" : String.join(" and ", extras), started.took().toSeconds());
            out.println("next: railyard submit -f examples/trainingjobs/llama70b-roce.yaml --wait");
            out.println("then: railyard up fault " + started.node() + " " + started.hca() + "   (a port down; on a node of a running gang,"
                    + " which railyard status NAME -n NAMESPACE lists, the gang restarts off it)");
            out.println("export KUBECONFIG=" + up.sandbox().kubeconfig());
            return 0;
        } catch (SandboxException e) {
            err.println("up: " + e.getMessage());
            return 1;
        }
    }

    /** The clone this jar runs from ({@code ./railyard} says where): {@code up} needs its tools, manifests and examples. */
    static Path home() {
        String home = System.getProperty("railyard.home");
        if (home == null) {
            throw new Railyard.UsageException("it runs from a clone of Railyard: ./railyard up (its tools/, deploy/ and examples/ are needed)");
        }
        return Path.of(home);
    }

    static Sandbox sandbox(Path dir) {
        return new Sandbox((dir == null ? Sandbox.defaultDir() : dir).toAbsolutePath().normalize());
    }
}
