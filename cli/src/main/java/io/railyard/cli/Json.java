package io.railyard.cli;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import io.railyard.diagnose.CheckResult;
import io.railyard.diagnose.DoctorReport;
import io.railyard.node.Attr;
import io.railyard.node.Port;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/** JSON output: a known attribute is its value, an unknown one {@code {"unknown": "<reason>"}}. */
final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(SerializationFeature.WRITE_ENUMS_USING_TO_STRING)
            .addMixIn(Port.class, PortMixin.class)
            .registerModule(new SimpleModule().addSerializer(new AttrSerializer()));

    private static final ObjectMapper LINE = new ObjectMapper();

    private Json() {}

    /** One JSON object on one line, for streams read line by line. */
    static String line(Object value) {
        try {
            return LINE.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String doctor(DoctorReport report) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("status", report.status().json());
        root.put("checks", report.checks().stream().map(Json::check).toList());
        root.put("node", report.node());
        return write(root);
    }

    static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<String, Object> check(CheckResult check) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("id", check.id());
        json.put("status", check.status().json());
        json.put("summary", check.summary());
        json.put("details", check.details());
        json.put("remedy", check.remedy());
        return json;
    }

    /** The port's sysfs directory is how counters are read, not a fact about the port. */
    @JsonIgnoreProperties({"dir"})
    private interface PortMixin {}

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static final class AttrSerializer extends StdSerializer<Attr> {
        AttrSerializer() {
            super(Attr.class);
        }

        @Override
        public void serialize(Attr attr, JsonGenerator generator, SerializerProvider provider) throws IOException {
            switch (attr) {
                case Attr.Known known -> provider.defaultSerializeValue(known.value(), generator);
                case Attr.Unknown unknown -> {
                    generator.writeStartObject();
                    generator.writeStringField("unknown", unknown.reason());
                    generator.writeEndObject();
                }
            }
        }
    }

}
