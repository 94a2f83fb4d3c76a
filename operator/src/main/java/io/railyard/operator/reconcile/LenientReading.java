package io.railyard.operator.reconcile;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.DeserializationProblemHandler;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.operator.api.config.Cloner;
import io.railyard.api.TrainingJob;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * How the operator's client reads TrainingJobs: a field or value its classes do not know (a CRD newer than the
 * operator, a server that prunes nothing) is noted on the job instead of failing the read. A failed read stops the
 * informer, and with it the reconciliation of every job.
 */
public final class LenientReading {
    private LenientReading() {}

    /** The serialization for the operator's Kubernetes client. */
    public static KubernetesSerialization serialization() {
        return new KubernetesSerialization(new ObjectMapper().addHandler(new Noting()), true);
    }

    /** JOSDK's copy of a job before each reconcile, keeping what could not be read (the copy goes through JSON). */
    public static Cloner cloner(KubernetesSerialization serialization) {
        return new Cloner() {
            @Override
            public <R extends HasMetadata> R clone(R object) {
                R copy = serialization.clone(object);
                if (object instanceof TrainingJob job && copy instanceof TrainingJob copied) {
                    copied.unreadFields().addAll(job.unreadFields());
                }
                return copy;
            }
        };
    }

    private static final class Noting extends DeserializationProblemHandler {
        @Override
        public boolean handleUnknownProperty(DeserializationContext context, JsonParser parser, JsonDeserializer<?> deserializer,
                Object bean, String property) throws IOException {
            TrainingJob job = job(parser.getParsingContext());
            if (job == null) {
                return false;
            }
            // the parser may stand on the field's name or already inside its value
            JsonStreamContext at = parser.getParsingContext();
            while (at != null && !property.equals(at.getCurrentName())) {
                at = at.getParent();
            }
            job.unreadFields().add((at == null ? fieldPath(parser.getParsingContext(), property) : fieldPath(at, null)) + ": unknown field");
            parser.skipChildren();
            return true;
        }

        @Override
        public Object handleWeirdStringValue(DeserializationContext context, Class<?> target, String value, String message) {
            boolean tooLarge = value.matches("-?\\d+") && (target == Integer.class || target == int.class);
            return noted(context.getParser(), tooLarge ? value + " is out of range (at most " + Integer.MAX_VALUE + ")" : "'" + value + "' is not " + what(target));
        }

        @Override
        public Object handleWeirdNumberValue(DeserializationContext context, Class<?> target, Number value, String message) {
            return noted(context.getParser(), value + " is not " + what(target));
        }

        @Override
        public Object handleUnexpectedToken(DeserializationContext context, JavaType target, JsonToken token, JsonParser parser,
                String message) throws IOException {
            Object noted = noted(parser, "a " + (token == JsonToken.START_ARRAY ? "list" : token == JsonToken.START_OBJECT ? "mapping" : "value")
                    + " is not " + what(target.getRawClass()));
            if (noted != NOT_HANDLED) {
                parser.skipChildren();
            }
            return noted;
        }

        private static Object noted(JsonParser parser, String why) {
            TrainingJob job = job(parser.getParsingContext());
            if (job == null) {
                return NOT_HANDLED;
            }
            job.unreadFields().add(fieldPath(parser.getParsingContext(), null) + ": " + why);
            return null;
        }
    }

    /** The job being read, held by the outermost context. */
    private static TrainingJob job(JsonStreamContext context) {
        TrainingJob job = null;
        for (JsonStreamContext c = context; c != null; c = c.getParent()) {
            if (c.getCurrentValue() instanceof TrainingJob found) {
                job = found;
            }
        }
        return job;
    }

    /** The field a parser stands in, as {@code spec.rdma.env} or {@code spec.args[2]}, with {@code last} appended when not null. */
    private static String fieldPath(JsonStreamContext context, String last) {
        List<String> parts = new ArrayList<>();
        for (JsonStreamContext c = context; c != null && !c.inRoot(); c = c.getParent()) {
            if (c.inArray()) {
                parts.addFirst("[" + c.getCurrentIndex() + "]");
            } else if (c.getCurrentName() != null) {
                parts.addFirst("." + c.getCurrentName());
            }
        }
        if (last != null) {
            parts.add("." + last);
        }
        return String.join("", parts).replaceFirst("^\\.", "");
    }

    private static String what(Class<?> type) {
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
            return "an integer";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type.isEnum()) {
            return "one of " + Arrays.stream(type.getEnumConstants()).map(LenientReading::jsonName).collect(Collectors.joining(", "));
        }
        return "a " + type.getSimpleName();
    }

    private static String jsonName(Object constant) {
        try {
            JsonProperty json = constant.getClass().getField(((Enum<?>) constant).name()).getAnnotation(JsonProperty.class);
            return json == null ? constant.toString() : json.value();
        } catch (NoSuchFieldException e) {
            return constant.toString();
        }
    }
}
