package io.railyard.bench;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** A client's API requests by verb and kind, watches apart: an interceptor, and the counts between two moments. */
final class RequestCounts implements Interceptor {
    private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();

    @Override
    public void before(BasicBuilder builder, HttpRequest request, Interceptor.RequestTags tags) {
        String query = request.uri().getQuery();
        if (query != null && query.contains("watch=true")) {
            return;
        }
        String path = request.uri().getPath();
        String kind = path.replaceAll(".*/namespaces/[^/]+/", "").replaceAll("^/api(s)?/.*?/v1[a-z0-9]*/", "").replaceAll("/.*", "");
        requests.computeIfAbsent(request.method() + " " + kind, k -> new LongAdder()).increment();
    }

    Map<String, Long> snapshot() {
        Map<String, Long> counts = new TreeMap<>();
        requests.forEach((verb, count) -> counts.put(verb, count.sum()));
        return counts;
    }

    static Map<String, Long> difference(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> difference = new TreeMap<>();
        after.forEach((verb, count) -> {
            long delta = count - before.getOrDefault(verb, 0L);
            if (delta > 0) {
                difference.put(verb, delta);
            }
        });
        return difference;
    }

    static long total(Map<String, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }
}
