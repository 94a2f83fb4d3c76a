package io.railyard.cli;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesListBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.railyard.api.TrainingJob;
import io.railyard.operator.model.OperatorDefaults;
import io.railyard.operator.model.RestartStrategies;
import io.railyard.operator.model.WorkloadGangModel;
import io.railyard.operator.model.SparePods;
import io.railyard.operator.model.TrainingJobModel;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;
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
            description = "The cluster's Kubernetes version: from " + RestartStrategies.IN_PLACE_SINCE + " pods restart in place, from "
                    + WorkloadGangModel.SERVED_SINCE + " scheduler kubernetes gangs (with its gate on) (default: ${DEFAULT-VALUE}).")
    String kubeVersion;

    /** The newest Kubernetes release the operator knows. */
    static final String KUBE_VERSION = "1.36";

    /** Pods built and written at a time. */
    private static final int PART = 256;

    @Mixin
    InstallationOptions installation = new InstallationOptions();

    @Override
    public Integer call() {
        if (!kubeVersion.matches("v?\\d+\\.\\d+(\\.\\d+)?")) {
            throw new Railyard.UsageException("--kube-version " + kubeVersion + " is not a version such as " + KUBE_VERSION);
        }
        List<TrainingJob> jobs = JobFile.readValid(file, "render", System.in);
        PrintWriter err = spec.commandLine().getErr();
        OperatorDefaults defaults = installation.defaults().withInPlaceRestart(RestartStrategies.servedBy(kubeVersion))
                .withWorkloadGangs(WorkloadGangModel.servedBy(kubeVersion));
        PrintWriter out = spec.commandLine().getOut();
        if (output == Output.json) {
            out.println(Serialization.asJson(new KubernetesListBuilder().withItems(objects(jobs, defaults, err, object -> object).toList()).build()));
        } else {
            YamlDocuments.writeAll(out, objects(jobs, defaults, err, YamlDocuments::document));
        }
        out.flush();
        err.flush();
        return 0;
    }

    /**
     * Each job's objects in {@code form} (the warnings printed first, as each job is read): its Service, PodGroup and claim
     * template, its pods, its spares. The stream is lazy: the pods are built and formed a part at a time.
     */
    private static <T> Stream<T> objects(List<TrainingJob> jobs, OperatorDefaults defaults, PrintWriter err, Function<HasMetadata, T> form) {
        List<Stream<T>> parts = new ArrayList<>();
        for (TrainingJob job : jobs) {
            TrainingJobModel.Desired owned = TrainingJobModel.owned(job, defaults);
            String which = jobs.size() == 1 ? "" : job.getMetadata().getName() + ": ";
            owned.warnings().forEach(warning -> err.println("render: warning: " + which + warning));
            parts.add(owned.objects().stream().map(form));
            parts.add(pods(job, defaults, form));
            // made once the gang runs
            parts.add(SparePods.missing(job, defaults, Set.of(), SparePods.desired(job, defaults)).stream().map(form));
        }
        return parts.stream().flatMap(part -> part);
    }

    /**
     * A gang's pods in index order and in their form, {@value #PART} at a time, each part built and formed on every core:
     * a 12,500-node gang held whole made its young collections copy it over and over (a second of pauses here).
     */
    private static <T> Stream<T> pods(TrainingJob job, OperatorDefaults defaults, Function<HasMetadata, T> form) {
        int nodes = job.getSpec().nodes;
        return IntStream.iterate(0, from -> from < nodes, from -> from + PART).boxed().flatMap(from -> TrainingJobModel.pods(job, defaults,
                index -> index >= from && index < from + PART).parallelStream().map(form).toList().stream());
    }
}
