package io.railyard.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.DeserializationProblemHandler;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.railyard.api.Names;
import io.railyard.api.TrainingJob;
import io.railyard.operator.model.JobValidation;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
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
        for (int i = 0; i < documents.size(); i++) {
            String where = documents.size() == 1 ? name : name + " (document " + (i + 1) + ")";
            List<String> own = new ArrayList<>();
            TrainingJob job = job(documents.get(i), own);
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

    /** One document as a TrainingJob, every unknown field and wrong type added to {@code problems}; null if it cannot be one. */
    private static TrainingJob job(JsonNode document, List<String> problems) {
        if (!document.isObject()) {
            problems.add("is not a YAML mapping");
            return null;
        }
        if (!(Names.GROUP + "/" + Names.VERSION).equals(document.path("apiVersion").asText()) || !"TrainingJob".equals(document.path("kind").asText())) {
            problems.add("is not a TrainingJob (apiVersion railyard.io/v1alpha1, kind TrainingJob)");
            return null;
        }
        ObjectMapper mapper = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .addHandler(new DeserializationProblemHandler() {
                    @Override
                    public boolean handleUnknownProperty(DeserializationContext context, JsonParser parser, JsonDeserializer<?> deserializer,
                            Object bean, String property) throws IOException {
                        problems.add(join(path(parser.getParsingContext().getParent()), property) + ": unknown field");
                        parser.skipChildren();
                        return true;
                    }
                });
        try {
            return mapper.treeToValue(document, TrainingJob.class);
        } catch (MismatchedInputException e) {
            problems.add(path(e) + ": " + expected(e.getTargetType()) + ", not " + shown(document, e));
        } catch (JsonMappingException e) {
            String why = e.getCause() instanceof InputCoercionException
                    ? shown(document, e) + " is out of range (at most " + Integer.MAX_VALUE + ")"
                    : e.getOriginalMessage().lines().findFirst().orElse("invalid");
            problems.add(path(e) + ": " + why);
        } catch (IOException e) {
            problems.add(e.getMessage().lines().findFirst().orElse("invalid"));
        }
        return null;
    }

    private static String path(JsonMappingException e) {
        return e.getPath().stream().map(ref -> ref.getFieldName() == null ? "[" + ref.getIndex() + "]" : "." + ref.getFieldName())
                .collect(Collectors.joining()).replaceFirst("^\\.", "");
    }

    private static String path(JsonStreamContext context) {
        List<String> parts = new ArrayList<>();
        for (JsonStreamContext c = context; c != null && !c.inRoot(); c = c.getParent()) {
            if (c.inArray()) {
                parts.addFirst("[" + c.getCurrentIndex() + "]");
            } else if (c.getCurrentName() != null) {
                parts.addFirst("." + c.getCurrentName());
            }
        }
        return String.join("", parts).replaceFirst("^\\.", "");
    }

    private static String join(String parent, String field) {
        return parent.isEmpty() ? field : parent + "." + field;
    }

    /** What the field holds, in a person's words: {@code expected an integer}. */
    private static String expected(Class<?> type) {
        if (type == null) {
            return "a different value";
        }
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
            return "expected an integer";
        }
        if (type == Double.class || type == double.class) {
            return "expected a number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "expected true or false";
        }
        if (type == String.class) {
            return "expected a string";
        }
        if (type.isEnum()) {
            return "expected one of " + Arrays.stream(type.getEnumConstants()).map(JobFile::enumName).collect(Collectors.joining(", "));
        }
        if (Collection.class.isAssignableFrom(type)) {
            return "expected a list";
        }
        return Map.class.isAssignableFrom(type) ? "expected a mapping" : "expected a mapping (" + type.getSimpleName() + ")";
    }

    private static String enumName(Object constant) {
        try {
            var json = constant.getClass().getField(((Enum<?>) constant).name()).getAnnotation(com.fasterxml.jackson.annotation.JsonProperty.class);
            return json == null ? constant.toString() : json.value();
        } catch (NoSuchFieldException e) {
            return constant.toString();
        }
    }

    /** The value the document has where the mismatch is. */
    private static String shown(JsonNode document, JsonMappingException e) {
        JsonNode node = document;
        for (JsonMappingException.Reference ref : e.getPath()) {
            node = ref.getFieldName() == null ? node.path(ref.getIndex()) : node.path(ref.getFieldName());
        }
        if (node.isMissingNode()) {
            return "what is there";
        }
        return node.isContainerNode() ? (node.isArray() ? "a list" : "a mapping") : node.isTextual() ? "'" + node.asText() + "'" : node.toString();
    }

    private static String where(JsonLocation location) {
        return location == null || location.getLineNr() < 0 ? "" : ": line " + location.getLineNr() + ", column " + location.getColumnNr();
    }
}
