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
 * @param skipped files that exist but hold no number (iWARP's {@code N/A (no PMA)}, unreadable files)
 */
public record Counters(Map<String, Long> values, List<String> skipped) {

    /** Reads every file in the directory; a missing directory gives no counters. */
    public static Counters read(Sysfs sysfs, Path dir) {
        Map<String, Long> values = new LinkedHashMap<>();
        List<String> skipped = new ArrayList<>();
        for (String name : sysfs.list(dir)) {
            Attr<Long> value = sysfs.read(dir.resolve(name), Counters::parseCounter);
            switch (value) {
                case Attr.Known<Long>(Long v) -> values.put(name, v);
                case Attr.Unknown<Long> u -> skipped.add(name);
            }
        }
        return new Counters(Collections.unmodifiableMap(values), List.copyOf(skipped));
    }

    private static long parseCounter(String text) {
        try {
            return Long.parseUnsignedLong(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a counter value");
        }
    }
}
