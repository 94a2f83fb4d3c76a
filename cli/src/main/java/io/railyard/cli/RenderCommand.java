package io.railyard.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.operator.model.JobValidation;
import io.railyard.operator.model.TrainingJobModel;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code railyard render}: what the operator would create for a TrainingJob, without a cluster. */
@Command(
        name = "render",
        mixinStandardHelpOptions = true,
        description = "Print the Service, PodGroup and Pods the operator would create for a TrainingJob.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:rendered", "2:the job is invalid, or a usage error"})
final class RenderCommand implements Callable<Integer> {
    enum Output { yaml, json }

    @Spec
    CommandSpec spec;

    @Option(names = {"-f", "--file"}, required = true, description = "The TrainingJob YAML.")
    Path file;

    @Option(names = {"-o", "--output"}, defaultValue = "yaml", description = "Output format: ${COMPLETION-CANDIDATES}.")
    Output output;

    @Mixin
    InstallationOptions installation = new InstallationOptions();

    @Override
    public Integer call() {
        TrainingJob job = readValid(file, "render");
        TrainingJobModel.Desired desired = TrainingJobModel.desired(job, installation.defaults());
        PrintWriter err = spec.commandLine().getErr();
        desired.warnings().forEach(warning -> err.println("render: warning: " + warning));
        PrintWriter out = spec.commandLine().getOut();
        if (output == Output.json) {
            out.println(Serialization.asJson(desired.objects()));
        } else {
            desired.objects().forEach(object -> out.print(Serialization.asYaml(object)));
        }
        out.flush();
        err.flush();
        return 0;
    }

    /** A TrainingJob that passes every validation rule; else each failing rule on its own line, as a usage error. */
    static TrainingJob readValid(Path file, String command) {
        TrainingJob job = read(file);
        List<String> errors = JobValidation.errors(job);
        if (!errors.isEmpty()) {
            throw new Railyard.UsageException(errors.stream().map(e -> file + ": " + e).collect(Collectors.joining("\n" + command + ": ")));
        }
        return job;
    }

    static TrainingJob read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw Railyard.UsageException.unreadable(file.toString(), e);
        }
        TrainingJob job;
        try {
            // built here, not in a static field: picocli constructs every subcommand, and a mapper costs every command
            ObjectMapper yaml = new ObjectMapper(new YAMLFactory()).enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
            JsonNode tree = yaml.readTree(text);
            if (tree == null || tree.isMissingNode() || !tree.isObject()) {
                throw new Railyard.UsageException(file + ": is empty or not a YAML object");
            }
            if (!(Names.GROUP + "/" + Names.VERSION).equals(tree.path("apiVersion").asText()) || !"TrainingJob".equals(tree.path("kind").asText())) {
                throw new Railyard.UsageException(file + ": is not a TrainingJob (apiVersion railyard.io/v1alpha1, kind TrainingJob)");
            }
            job = yaml.readValue(text, TrainingJob.class);
        } catch (UnrecognizedPropertyException e) {
            String path = e.getPath().stream().map(ref -> ref.getFieldName() == null ? "[" + ref.getIndex() + "]" : ref.getFieldName())
                    .collect(Collectors.joining(".")).replace(".[", "[");
            throw new Railyard.UsageException(file + ": " + path + ": unknown field" + where(e.getLocation()));
        } catch (JsonProcessingException e) {
            throw new Railyard.UsageException(file + where(e.getLocation()) + ": " + e.getOriginalMessage().lines().findFirst().orElse("not YAML"));
        }
        return job;
    }

    private static String where(JsonLocation location) {
        return location == null || location.getLineNr() < 0 ? "" : ": line " + location.getLineNr() + ", column " + location.getColumnNr();
    }
}
