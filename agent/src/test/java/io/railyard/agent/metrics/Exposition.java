package io.railyard.agent.metrics;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Samples of a Prometheus text exposition, keyed by name and sorted labels. */
public final class Exposition {
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)\\})?\\s+(\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private Exposition() {}

    public static String scrape(int port) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        return response.body();
    }

    public static Map<String, Double> parse(String text) {
        Map<String, Double> samples = new TreeMap<>();
        for (String line : text.split("\n")) {
            Matcher sample = SAMPLE.matcher(line);
            if (line.startsWith("#") || !sample.find()) {
                continue;
            }
            TreeSet<String> labels = new TreeSet<>();
            if (sample.group(3) != null) {
                Matcher label = LABEL.matcher(sample.group(3));
                while (label.find()) {
                    labels.add(label.group(1) + "=" + label.group(2));
                }
            }
            samples.put(sample.group(1) + labels, Double.parseDouble(sample.group(4)));
        }
        return samples;
    }
}
