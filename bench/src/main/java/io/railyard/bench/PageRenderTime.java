package io.railyard.bench;

import io.railyard.testkit.Chromium;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How long a real headless Chromium takes to show each page: the navigation's duration to its load event and its
 * first contentful paint, the median of RUNS loads each, the pages loaded in turn.
 *   PageRenderTime CHROMIUM RUNS PAGE...
 */
public final class PageRenderTime {
    private static final String TIMES = "JSON.stringify([performance.getEntriesByType('navigation')[0].duration,"
            + " (performance.getEntriesByName('first-contentful-paint')[0] || {startTime: -1}).startTime])";

    private PageRenderTime() {}

    public static void main(String[] args) throws Exception {
        int runs = Integer.parseInt(args[1]);
        List<Path> pages = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            pages.add(Path.of(args[i]).toAbsolutePath());
        }
        List<List<double[]>> times = new ArrayList<>();
        pages.forEach(page -> times.add(new ArrayList<>()));
        try (Chromium chromium = Chromium.start(Path.of(args[0]), 1600, 1000)) {
            for (int run = 0; run < runs + 1; run++) {
                for (int p = 0; p < pages.size(); p++) {
                    chromium.load(pages.get(p));
                    // the paint entry comes after the load event: wait for a frame
                    chromium.evaluate("new Promise(r => requestAnimationFrame(() => setTimeout(r, 50)))");
                    String[] pair = chromium.evaluate(TIMES).asText().replaceAll("[\\[\\]]", "").split(",");
                    if (run > 0) { // the first load of each warms the browser's caches
                        times.get(p).add(new double[] {Double.parseDouble(pair[0]), Double.parseDouble(pair[1])});
                    }
                }
            }
        }
        for (int p = 0; p < pages.size(); p++) {
            System.out.printf("%s: load %.0f ms, first contentful paint %.0f ms (medians of %d)%n", pages.get(p).getFileName(),
                    median(times.get(p), 0), median(times.get(p), 1), runs);
        }
    }

    private static double median(List<double[]> times, int column) {
        double[] values = times.stream().mapToDouble(t -> t[column]).sorted().toArray();
        return values.length % 2 == 1 ? values[values.length / 2] : (values[values.length / 2 - 1] + values[values.length / 2]) / 2;
    }
}
