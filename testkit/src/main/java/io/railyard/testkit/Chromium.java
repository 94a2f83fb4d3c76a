package io.railyard.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real headless Chromium driven over its DevTools protocol: it loads a page from a file and says what a person
 * would see there (an expression evaluated in the page, a screenshot), what the page asked the network for and what
 * it logged as an error.
 */
public final class Chromium implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("DevTools listening on (ws://\\S+)");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final Path profile;
    private final WebSocket socket;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private volatile CompletableFuture<Void> loaded = new CompletableFuture<>();

    private Chromium(Process process, Path profile, WebSocket socket) {
        this.process = process;
        this.profile = profile;
        this.socket = socket;
    }

    /** The browser, its window {@code width} × {@code height}; {@code binary} is {@code chromium} on Debian. */
    public static Chromium start(Path binary, int width, int height) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("chromium-profile");
        Process process = new ProcessBuilder(binary.toString(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--no-first-run", "--remote-debugging-port=0", "--remote-allow-origins=*", "--user-data-dir=" + profile,
                "--window-size=" + width + "," + height, "about:blank").redirectErrorStream(true).start();
        String browserUrl = listening(process);
        HttpClient http = HttpClient.newHttpClient();
        URI list = URI.create(browserUrl.replaceFirst("^ws://([^/]+)/.*", "http://$1/json/list"));
        String page = null;
        for (int attempt = 0; attempt < 50 && page == null; attempt++) {
            JsonNode targets = JSON.readTree(http.send(HttpRequest.newBuilder(list).build(), HttpResponse.BodyHandlers.ofString()).body());
            for (JsonNode target : targets) {
                if (target.path("type").asText().equals("page")) {
                    page = target.path("webSocketDebuggerUrl").asText();
                }
            }
            if (page == null) {
                Thread.sleep(100);
            }
        }
        if (page == null) {
            process.destroyForcibly();
            throw new IOException("chromium opened no page to drive");
        }
        Listener listener = new Listener();
        WebSocket socket = http.newWebSocketBuilder().buildAsync(URI.create(page), listener).join();
        Chromium chromium = new Chromium(process, profile, socket);
        listener.chromium = chromium;
        for (String domain : List.of("Runtime", "Log", "Network", "Page")) {
            chromium.call(domain + ".enable", JSON.createObjectNode());
        }
        return chromium;
    }

    /** Loads the file and waits for its load event. */
    public void load(Path file) {
        loaded = new CompletableFuture<>();
        errors.clear();
        requests.clear();
        call("Page.navigate", JSON.createObjectNode().put("url", file.toUri().toString()));
        loaded.orTimeout(60, TimeUnit.SECONDS).join();
    }

    /** The value of a JavaScript expression in the page, as JSON. */
    public JsonNode evaluate(String expression) {
        JsonNode result = call("Runtime.evaluate", JSON.createObjectNode().put("expression", expression).put("returnByValue", true)
                .put("awaitPromise", true));
        if (result.has("exceptionDetails")) {
            throw new IllegalStateException("the page could not evaluate " + expression + ": " + result.path("exceptionDetails"));
        }
        return result.path("result").path("value");
    }

    /** A PNG of the whole page, not only the window. */
    public byte[] screenshot() {
        JsonNode result = call("Page.captureScreenshot", JSON.createObjectNode().put("format", "png").put("captureBeyondViewport", true));
        return Base64.getDecoder().decode(result.path("data").asText());
    }

    /** Errors since the last load: exceptions, console errors, failed loads and the browser's own error log. */
    public List<String> errors() {
        return List.copyOf(errors);
    }

    /** Every URL the page asked for since the last load, the page itself included. */
    public List<String> requests() {
        return List.copyOf(requests);
    }

    @Override
    public void close() throws IOException {
        socket.abort();
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (var files = Files.walk(profile)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }

    private JsonNode call(String method, ObjectNode params) {
        int id = ids.incrementAndGet();
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        pending.put(id, answer);
        ObjectNode message = JSON.createObjectNode().put("id", id).put("method", method);
        message.set("params", params);
        socket.sendText(message.toString(), true).join();
        JsonNode reply = answer.orTimeout(60, TimeUnit.SECONDS).join();
        if (reply.has("error")) {
            throw new IllegalStateException(method + " failed: " + reply.path("error"));
        }
        return reply.path("result");
    }

    private void onMessage(JsonNode message) {
        if (message.has("id")) {
            CompletableFuture<JsonNode> answer = pending.remove(message.path("id").asInt());
            if (answer != null) {
                answer.complete(message);
            }
            return;
        }
        JsonNode params = message.path("params");
        switch (message.path("method").asText()) {
            case "Page.loadEventFired" -> loaded.complete(null);
            case "Network.requestWillBeSent" -> requests.add(params.path("request").path("url").asText());
            case "Network.loadingFailed" -> errors.add("failed to load: " + params.path("errorText").asText());
            case "Runtime.exceptionThrown" -> errors.add("exception: " + params.path("exceptionDetails").path("text").asText());
            case "Runtime.consoleAPICalled" -> {
                if (params.path("type").asText().equals("error")) {
                    errors.add("console: " + params.path("args"));
                }
            }
            case "Log.entryAdded" -> {
                if (params.path("entry").path("level").asText().equals("error")) {
                    errors.add("log: " + params.path("entry").path("text").asText());
                }
            }
            default -> { }
        }
    }

    private static String listening(Process process) throws IOException {
        BufferedReader output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        List<String> seen = new ArrayList<>();
        for (String line = output.readLine(); line != null; line = output.readLine()) {
            Matcher matcher = LISTENING.matcher(line);
            if (matcher.find()) {
                Thread.ofVirtual().start(() -> drain(output)); // a full pipe would stop the browser
                return matcher.group(1);
            }
            seen.add(line);
        }
        throw new IOException("chromium exited before it listened for DevTools: " + String.join(" | ", seen));
    }

    private static void drain(BufferedReader output) {
        try {
            while (output.readLine() != null) {
                // the browser's own log: nothing the page did
            }
        } catch (IOException e) {
            // the browser exited
        }
    }

    private static final class Listener implements WebSocket.Listener {
        private final StringBuilder text = new StringBuilder();
        volatile Chromium chromium;

        @Override
        public CompletionStage<?> onText(WebSocket socket, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                try {
                    chromium.onMessage(JSON.readTree(text.toString()));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                text.setLength(0);
            }
            socket.request(1);
            return null;
        }
    }
}
