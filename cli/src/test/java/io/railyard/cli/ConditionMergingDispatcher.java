package io.railyard.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fabric8 CRUD mock API server's dispatcher, taking a strategic merge patch of a Node's status as a real API server
 * does (the mock answers 415 to one): its conditions merged into the stored ones by type. Every such patch is kept as it
 * came in, with when it came.
 */
public final class ConditionMergingDispatcher extends KubernetesCrudDispatcher {
    private static final Pattern NODE_STATUS = Pattern.compile("/api/v1/nodes/([^/?]+)/status.*");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A patch of a Node's status: its content type, body, and arrival. */
    public record Sent(String node, String contentType, String body, Instant at) {}

    private final List<Sent> statusPatches = new CopyOnWriteArrayList<>();
    private volatile boolean refusing;

    public List<Sent> statusPatches() {
        return statusPatches;
    }

    /** While set, a patch of a Node's status is kept but answered 503, as an overloaded API server answers. */
    public void refuseStatusPatches(boolean refuse) {
        refusing = refuse;
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        Matcher status = NODE_STATUS.matcher(request.getPath());
        if (request.getMethod().equals("PATCH") && status.matches()) {
            String contentType = String.valueOf(request.getHeader("Content-Type"));
            String body = request.getUtf8Body(); // read once: reading consumes it
            statusPatches.add(new Sent(status.group(1), contentType, body, Instant.now()));
            if (refusing) {
                return new MockResponse().setResponseCode(503).setBody("{\"kind\":\"Status\",\"status\":\"Failure\",\"code\":503}");
            }
            if (contentType.startsWith("application/strategic-merge-patch+json")) {
                return mergeConditionsByType(status.group(1), body);
            }
            return super.dispatch(new RecordedRequest("HTTP/1.1", request.method(), request.getPath(), request.getHeaders(),
                    new Buffer().writeUtf8(body)));
        }
        return super.dispatch(request);
    }

    private MockResponse mergeConditionsByType(String name, String patch) {
        try {
            MockResponse stored = super.dispatch(new RecordedRequest("HTTP/1.1", HttpMethod.GET, "/api/v1/nodes/" + name,
                    Headers.builder().build(), new Buffer()));
            if (stored.code() != 200) {
                return stored;
            }
            ObjectNode node = (ObjectNode) JSON.readTree(stored.getBody().readUtf8());
            ObjectNode status = node.get("status") instanceof ObjectNode existing ? existing : node.putObject("status");
            ArrayNode conditions = status.get("conditions") instanceof ArrayNode existing ? existing : status.putArray("conditions");
            for (JsonNode update : JSON.readTree(patch).path("status").path("conditions")) {
                boolean replaced = false;
                for (int i = 0; i < conditions.size(); i++) {
                    if (conditions.get(i).path("type").equals(update.path("type"))) {
                        conditions.set(i, update);
                        replaced = true;
                    }
                }
                if (!replaced) {
                    conditions.add(update);
                }
            }
            return super.dispatch(new RecordedRequest("HTTP/1.1", HttpMethod.PUT, "/api/v1/nodes/" + name + "/status",
                    Headers.builder().add("Content-Type", "application/json").build(), new Buffer().writeUtf8(node.toString())));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
