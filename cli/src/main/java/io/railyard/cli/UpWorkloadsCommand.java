package io.railyard.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.railyard.cli.up.WorkloadPlayer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code railyard up workloads}: the sandbox's stand-in for the training containers KWOK does not run (started by up). */
@Command(name = "workloads", hidden = true, description = "Play the training pods of railyard up: their preflight gate, their trainer's log, their end.")
final class UpWorkloadsCommand implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(UpWorkloadsCommand.class);

    @Option(names = "--dir", required = true)
    Path dir;

    @Option(names = "--node-shape", required = true)
    String shape;

    @Option(names = "--run-seconds", defaultValue = "30")
    long runSeconds;

    @Override
    public Integer call() throws InterruptedException {
        var sandbox = UpCommand.sandbox(dir);
        Path log = WorkloadPlayer.trainerLogOf(UpCommand.home(), shape);
        // a client not asked anything yet: an API server slow to answer while the sandbox starts is tried again each look
        KubernetesClient client = KubeClients.client(sandbox.kubeconfig());
        if (client == null) {
            throw new Railyard.UsageException("no cluster of railyard up in " + sandbox.dir() + ": its kubeconfig " + sandbox.kubeconfig() + " is missing");
        }
        try (KubernetesClient admin = client) {
            WorkloadPlayer player = new WorkloadPlayer(admin, sandbox, new PlayedPreflightLink(UpCommand.home()), log, Duration.ofSeconds(runSeconds), Clock.systemUTC());
            LOG.info("playing the training pods of {}: trainers log {}, each runs {} s", sandbox.dir(), log.getFileName(), runSeconds);
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    player.playOnce();
                } catch (RuntimeException e) { // the API server away for a while: the next look tries again
                    LOG.warn("could not look at the pods: {}", e.getMessage());
                }
                Thread.sleep(1000);
            }
        }
        return 0;
    }
}
