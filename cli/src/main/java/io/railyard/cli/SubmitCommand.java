package io.railyard.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.railyard.api.TrainingJob;
import io.railyard.operator.model.OperatorDefaults;
import io.railyard.operator.model.RestartStrategies;
import io.railyard.operator.model.TrainingJobModel;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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

    @Option(names = {"-f", "--file"}, required = true, description = "The TrainingJob YAML, one job per document; - reads standard input.")
    Path file;

    @Option(names = "--wait", description = "Follow the job until it succeeds or fails.")
    boolean waitForEnd;

    @Mixin
    KubeClients kube = new KubeClients();

    @Option(names = "--poll-ms", defaultValue = "2000", hidden = true)
    long pollMillis;

    @Override
    public Integer call() throws InterruptedException {
        List<TrainingJob> jobs = JobFile.readValid(file, "submit", System.in);
        if (waitForEnd && jobs.size() > 1) {
            throw new Railyard.UsageException(file + " holds " + jobs.size() + " TrainingJobs and --wait follows one: submit them without --wait"
                    + " and follow each with railyard status NAME");
        }
        PrintWriter out = spec.commandLine().getOut();
        try (KubernetesClient client = kube.connect()) {
            OperatorDefaults defaults = OperatorDefaults.STANDARD.withInPlaceRestart(inPlaceServed(client))
                    .withWorkloadGangs(OperatorCommand.workloadGangsServed(client));
            for (TrainingJob job : jobs) {
                TrainingJobModel.owned(job, defaults).warnings() // the warnings need none of the pods built
                        .forEach(warning -> spec.commandLine().getErr().println("submit: warning: " + job.getMetadata().getName() + ": " + warning));
                create(client, job);
                out.println("trainingjob " + job.getMetadata().getNamespace() + "/" + job.getMetadata().getName() + " created");
                out.flush();
            }
            return waitForEnd ? follow(client, jobs.getFirst(), out) : 0;
        }
    }

    /** Whether the cluster's version restarts pods in place, for the warnings; a server that does not say is taken as not. */
    private static boolean inPlaceServed(KubernetesClient client) {
        try {
            return RestartStrategies.servedBy(client.getKubernetesVersion().getGitVersion());
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static void create(KubernetesClient client, TrainingJob job) {
        if (job.getMetadata().getNamespace() == null) {
            job.getMetadata().setNamespace(client.getNamespace() == null ? "default" : client.getNamespace());
        }
        String name = job.getMetadata().getNamespace() + "/" + job.getMetadata().getName();
        try {
            client.resource(job).create();
        } catch (KubernetesClientException e) {
            throw new Railyard.UsageException("cannot create TrainingJob " + name + ": "
                    + (e.getCode() == 409 ? "it exists already (railyard status " + job.getMetadata().getName() + ")" : refusal(e)));
        }
    }

    /** The API server's own words when it answered (validation names the field), else the client's; one line either way. */
    private static String refusal(KubernetesClientException e) {
        String message = e.getStatus() != null && e.getStatus().getMessage() != null && !e.getStatus().getMessage().isBlank()
                ? "the API server refused it: " + e.getStatus().getMessage() : e.getMessage();
        return message.replaceAll("\\s*\\R\\s*", " ");
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
