package io.railyard.node;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Counter values read from one directory ({@code counters/} or {@code hw_counters/}) at one moment.
 *
 * @param values counter name to value, in file-name order
 * @param unavailable counters the driver says it cannot count (iWARP's {@code N/A (no PMA)})
 * @param malformed files that hold no number or cannot be read
 */
public record Counters(Map<String, Long> values, List<String> unavailable, List<String> malformed) {

    /** Reads every file in the directory; a missing directory gives no counters. */
    public static Counters read(Sysfs sysfs, Path dir) {
        Map<String, Long> values = new LinkedHashMap<>();
        List<String> unavailable = new ArrayList<>();
        List<String> malformed = new ArrayList<>();
        sysfs.readDirectory(dir).forEach((name, text) -> {
            if (text.is(t -> t.startsWith("N/A"))) {
                unavailable.add(name);
                return;
            }
            switch (text.flatMap(Counters::parseCounter)) {
                case Attr.Known<Long>(Long v) -> values.put(name, v);
                case Attr.Unknown<Long> u -> malformed.add(name);
            }
        });
        return new Counters(Collections.unmodifiableMap(values), List.copyOf(unavailable), List.copyOf(malformed));
    }

    private static Attr<Long> parseCounter(String text) {
        try {
            return Attr.of(Long.parseUnsignedLong(text.strip()));
        } catch (NumberFormatException e) {
            return Attr.unknown("not a counter value");
        }
    }
}
