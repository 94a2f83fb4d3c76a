package io.railyard.cli;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesListBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.railyard.api.TrainingJob;
import io.railyard.operator.model.OperatorDefaults;
import io.railyard.operator.model.RestartStrategies;
import io.railyard.operator.model.SparePods;
import io.railyard.operator.model.TrainingJobModel;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code railyard render}: what the operator would create for a TrainingJob, without a cluster. */
@Command(
        name = "render",
        mixinStandardHelpOptions = true,
        description = "Print the Service, PodGroup, Pods and spare Pods the operator would create for a TrainingJob.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:rendered", "2:the job is invalid, or a usage error"})
final class RenderCommand implements Callable<Integer> {
    enum Output { yaml, json }

    @Spec
    CommandSpec spec;

    @Option(names = {"-f", "--file"}, required = true, description = "The TrainingJob YAML, one job per document; - reads standard input.")
    Path file;

    @Option(names = {"-o", "--output"}, defaultValue = "yaml", description = "Output format: ${COMPLETION-CANDIDATES}.")
    Output output;

    @Option(names = "--kube-version", defaultValue = KUBE_VERSION, paramLabel = "MAJOR.MINOR",
            description = "The cluster's Kubernetes version: from " + RestartStrategies.IN_PLACE_SINCE + " pods restart in place (default: ${DEFAULT-VALUE}).")
    String kubeVersion;

    /** The newest Kubernetes release the operator knows. */
    static final String KUBE_VERSION = "1.36";

    @Mixin
    InstallationOptions installation = new InstallationOptions();

    @Override
    public Integer call() {
        if (!kubeVersion.matches("v?\\d+\\.\\d+(\\.\\d+)?")) {
            throw new Railyard.UsageException("--kube-version " + kubeVersion + " is not a version such as " + KUBE_VERSION);
        }
        List<TrainingJob> jobs = JobFile.readValid(file, "render", System.in);
        PrintWriter err = spec.commandLine().getErr();
        List<HasMetadata> objects = new ArrayList<>();
        for (TrainingJob job : jobs) {
            OperatorDefaults defaults = installation.defaults().withInPlaceRestart(RestartStrategies.servedBy(kubeVersion));
            TrainingJobModel.Desired desired = TrainingJobModel.desired(job, defaults);
            String which = jobs.size() == 1 ? "" : job.getMetadata().getName() + ": ";
            desired.warnings().forEach(warning -> err.println("render: warning: " + which + warning));
            objects.addAll(desired.objects());
            objects.addAll(SparePods.missing(job, defaults, Set.of(), SparePods.desired(job, defaults))); // made once the gang runs
        }
        PrintWriter out = spec.commandLine().getOut();
        if (output == Output.json) {
            out.println(Serialization.asJson(new KubernetesListBuilder().withItems(objects).build()));
        } else {
            YamlDocuments.writeAll(out, objects);
        }
        out.flush();
        err.flush();
        return 0;
    }
}
