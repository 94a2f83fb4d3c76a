package io.railyard.node;

import java.util.Set;

/**
 * The kernel modules present: those listed in {@code /proc/modules}, and those built in or loaded that
 * {@code /sys/module} shows (a built-in module never appears in {@code /proc/modules}).
 */
public record KernelModules(Attr<Set<String>> procModules, Set<String> sysModules) {

    public KernelModules {
        sysModules = Set.copyOf(sysModules);
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
                .collect(java.util.stream.Collectors.toUnmodifiableSet());
    }
}
