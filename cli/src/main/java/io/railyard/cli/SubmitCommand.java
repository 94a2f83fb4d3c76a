package io.railyard.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.railyard.api.TrainingJob;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code railyard submit}: create a TrainingJob, and with {@code --wait} follow it to its end. */
@Command(
        name = "submit",
        mixinStandardHelpOptions = true,
        description = "Create a TrainingJob; with --wait, show its progress until it succeeds or fails.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:created (with --wait: succeeded)", "1:with --wait: the job failed", "2:invalid job or usage error"})
final class SubmitCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-f", "--file"}, required = true, description = "The TrainingJob YAML.")
    Path file;

    @Option(names = "--wait", description = "Follow the job until it succeeds or fails.")
    boolean waitForEnd;

    @Mixin
    KubeClients kube = new KubeClients();

    @Option(names = "--poll-ms", defaultValue = "2000", hidden = true)
    long pollMillis;

    @Override
    public Integer call() throws InterruptedException {
        TrainingJob job = RenderCommand.readValid(file, "submit");
        PrintWriter out = spec.commandLine().getOut();
        try (KubernetesClient client = kube.connect()) {
            if (job.getMetadata().getNamespace() == null) {
                job.getMetadata().setNamespace(client.getNamespace() == null ? "default" : client.getNamespace());
            }
            String name = job.getMetadata().getNamespace() + "/" + job.getMetadata().getName();
            try {
                client.resource(job).create();
            } catch (KubernetesClientException e) {
                throw new Railyard.UsageException("cannot create TrainingJob " + name + ": "
                        + (e.getCode() == 409 ? "it exists already (railyard status " + job.getMetadata().getName() + ")" : e.getMessage()));
            }
            out.println("trainingjob " + name + " created");
            out.flush();
            return waitForEnd ? follow(client, job, out) : 0;
        }
    }

    private int follow(KubernetesClient client, TrainingJob submitted, PrintWriter out) throws InterruptedException {
        String last = "";
        while (true) {
            TrainingJob job = client.resource(submitted).get();
            if (job == null) {
                out.println("the job was deleted");
                out.flush();
                return 1;
            }
            String line = StatusCommand.progress(job);
            if (!line.equals(last)) {
                out.println(line);
                out.flush();
                last = line;
            }
            String phase = job.getStatus() == null ? null : job.getStatus().phase;
            if ("Succeeded".equals(phase)) {
                return 0;
            }
            if ("Failed".equals(phase)) {
                out.println(StatusCommand.failure(job));
                out.flush();
                return 1;
            }
            Thread.sleep(Duration.ofMillis(pollMillis));
        }
    }
}
