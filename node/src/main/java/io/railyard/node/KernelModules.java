package io.railyard.node;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * The kernel modules present: those listed in {@code /proc/modules}, and those built in or loaded that
 * {@code /sys/module} shows (a built-in module never appears in {@code /proc/modules}). Both keep a fixed order
 * ({@code /proc/modules}' own, and sorted), so that the doctor's JSON is the same on every run and every filesystem.
 */
public record KernelModules(Attr<Set<String>> procModules, Set<String> sysModules) {

    public KernelModules {
        sysModules = Collections.unmodifiableSet(new TreeSet<>(sysModules));
    }

    public boolean isLoaded(String name) {
        return procModules.is(modules -> modules.contains(name)) || sysModules.contains(name);
    }

    /** Parses {@code /proc/modules}: the first field of each line. */
    public static Set<String> parseProcModules(String text) {
        return text.lines()
                .map(String::strip)
                .filter(line -> !line.isEmpty())
                .map(line -> line.split("\\s+", 2)[0])
                .collect(java.util.stream.Collectors.collectingAndThen(java.util.stream.Collectors.toCollection(LinkedHashSet::new),
                        Collections::unmodifiableSet));
    }
}
