package io.railyard.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.operator.model.JobValidation;
import io.railyard.operator.reconcile.LenientReading;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The TrainingJobs of a file {@code render} and {@code submit} are given ({@code -} for standard input), one per YAML
 * document. Every mistake in every document is said, each naming its document and field, before anything is done.
 */
final class JobFile {
    private JobFile() {}

    /** Every job of the file, each valid; else a usage error with a line per problem. */
    static List<TrainingJob> readValid(Path file, String command, InputStream stdin) {
        String name = file.toString().equals("-") ? "standard input" : file.toString();
        List<JsonNode> documents = documents(name, text(file, name, stdin));
        List<TrainingJob> jobs = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        KubernetesSerialization reading = LenientReading.serialization(); // built once: it registers every model class
        for (int i = 0; i < documents.size(); i++) {
            String where = documents.size() == 1 ? name : name + " (document " + (i + 1) + ")";
            List<String> own = new ArrayList<>();
            TrainingJob job = job(documents.get(i), reading, own);
            if (job != null && own.isEmpty()) {
                own.addAll(JobValidation.errors(job));
            }
            own.forEach(problem -> problems.add(where + ": " + problem));
            jobs.add(job);
        }
        if (!problems.isEmpty()) {
            throw new Railyard.UsageException(String.join("\n" + command + ": ", problems));
        }
        return jobs;
    }

    private static String text(Path file, String name, InputStream stdin) {
        try {
            if (file.toString().equals("-")) {
                return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(stdin.readAllBytes())).toString();
            }
            return Files.readString(file);
        } catch (IOException e) {
            throw Railyard.UsageException.unreadable(name, e);
        }
    }

    private static List<JsonNode> documents(String name, String text) {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        List<JsonNode> documents = new ArrayList<>();
        try (var values = yaml.readerFor(JsonNode.class).<JsonNode>readValues(text)) {
            while (values.hasNextValue()) {
                JsonNode document = values.nextValue();
                if (document != null && !document.isNull() && !document.isMissingNode()) {
                    documents.add(document);
                }
            }
        } catch (IOException e) {
            JsonLocation location = e instanceof JsonProcessingException p ? p.getLocation() : null;
            String message = e instanceof JsonProcessingException p ? p.getOriginalMessage() : e.getMessage();
            throw new Railyard.UsageException(name + where(location) + ": " + message.lines().findFirst().orElse("not YAML"));
        }
        if (documents.isEmpty()) {
            throw new Railyard.UsageException(name + ": is empty: give a TrainingJob (apiVersion railyard.io/v1alpha1, kind TrainingJob)");
        }
        return documents;
    }

    /** One document as a TrainingJob, every field it cannot read added to {@code problems}; null if it cannot be one. */
    private static TrainingJob job(JsonNode document, KubernetesSerialization reading, List<String> problems) {
        if (!document.isObject()) {
            problems.add("is not a YAML mapping");
            return null;
        }
        if (!(Names.GROUP + "/" + Names.VERSION).equals(document.path("apiVersion").asText()) || !"TrainingJob".equals(document.path("kind").asText())) {
            problems.add("is not a TrainingJob (apiVersion railyard.io/v1alpha1, kind TrainingJob)");
            return null;
        }
        try {
            // read as the operator reads it: what it would not understand is what render and submit refuse
            TrainingJob job = reading.convertValue(document, TrainingJob.class);
            problems.addAll(job.unreadFields());
            return job;
        } catch (IllegalArgumentException e) {
            if (e.getCause() instanceof JsonMappingException mapping) {
                problems.add(path(mapping) + ": " + mapping.getOriginalMessage().lines().findFirst().orElse("invalid"));
            } else {
                problems.add(String.valueOf(e.getMessage()).lines().findFirst().orElse("invalid"));
            }
            return null;
        }
    }

    private static String path(JsonMappingException e) {
        return e.getPath().stream().map(ref -> ref.getFieldName() == null ? "[" + ref.getIndex() + "]" : "." + ref.getFieldName())
                .collect(Collectors.joining()).replaceFirst("^\\.", "");
    }

    private static String where(JsonLocation location) {
        return location == null || location.getLineNr() < 0 ? "" : ": line " + location.getLineNr() + ", column " + location.getColumnNr();
    }
}
