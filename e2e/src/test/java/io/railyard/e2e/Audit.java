package io.railyard.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The API server's audit log (level Metadata): the operator's requests as it answered them. */
final class Audit {
    static final String OPERATOR = "system:serviceaccount:" + Installation.SYSTEM + ":" + Installation.OPERATOR_ACCOUNT;

    private Audit() {}

    /** One request: "core" for the core group, "" for a missing name or subresource. */
    record Request(String verb, String group, String resource, String subresource, String namespace, String name, int code,
                   Instant received, String uri) {
        /** "group/resource[/subresource] verb", as the rules of a role read. */
        String key() {
            return group + "/" + resource + (subresource.isEmpty() ? "" : "/" + subresource) + " " + verb;
        }
    }

    /** The operator's requests the API server received at or after {@code since}, each once (at its ResponseComplete). */
    static List<Request> operatorRequests(ControlPlane cluster, Instant since) {
        return operatorRequests(cluster.auditLog(), since);
    }

    /** The same, from the audit log of another control plane (railyard up's). */
    static List<Request> operatorRequests(Path auditLog, Instant since) {
        ObjectMapper json = new ObjectMapper();
        List<Request> requests = new ArrayList<>();
        try (Stream<String> lines = Files.lines(auditLog)) {
            for (String line : (Iterable<String>) lines::iterator) {
                JsonNode event = json.readTree(line);
                // a watch once, when its answer starts (it completes only when it ends); any other request when it is answered
                String stage = event.path("verb").asText().equals("watch") ? "ResponseStarted" : "ResponseComplete";
                if (!event.path("user").path("username").asText().equals(OPERATOR) || !event.path("stage").asText().equals(stage)) {
                    continue;
                }
                Instant received = Instant.parse(event.path("requestReceivedTimestamp").asText());
                if (received.isBefore(since)) {
                    continue;
                }
                JsonNode object = event.path("objectRef");
                String group = object.path("apiGroup").asText("");
                requests.add(new Request(event.path("verb").asText(), group.isEmpty() ? "core" : group, object.path("resource").asText(),
                        object.path("subresource").asText(""), object.path("namespace").asText(""), object.path("name").asText(""),
                        event.path("responseStatus").path("code").asInt(), received, event.path("requestURI").asText()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return requests;
    }
}
