package io.railyard.cli;

import java.util.Collection;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A tree of maps, lists, strings, integers and booleans written as JSON exactly as {@link Json#write} prints it, without
 * Jackson. A command that runs once pays about a quarter of a second to start Jackson's serializers, more than the rest of
 * writing a 2,000-host fabric's 2.6 MB report (bench/fabric-vs-awk.sh).
 */
final class TreeJson {
    private static final int PARALLEL = 1_000;

    private TreeJson() {}

    static String write(Object tree) {
        StringBuilder out = new StringBuilder(1 << 16);
        value(out, tree, 0);
        return out.toString();
    }

    // instanceof, not a pattern switch: a switch on types is linked at its first run, a cost the JVM's cache does not keep
    private static void value(StringBuilder out, Object value, int depth) {
        if (value instanceof String text) {
            string(out, text);
        } else if (value instanceof Map<?, ?> map) {
            object(out, map, depth);
        } else if (value instanceof Collection<?> list) {
            array(out, list, depth);
        } else if (value instanceof Integer || value instanceof Long || value instanceof Boolean || value == null) {
            out.append(value);
        } else {
            throw new IllegalArgumentException("not a JSON tree value: " + value.getClass().getName());
        }
    }

    /** Jackson's default pretty printer: a field a line, two spaces a level, {@code "name" : value}. */
    private static void object(StringBuilder out, Map<?, ?> map, int depth) {
        if (map.isEmpty()) {
            out.append("{ }");
            return;
        }
        out.append('{');
        String separator = "";
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            out.append(separator);
            separator = ",";
            newline(out, depth + 1);
            string(out, (String) entry.getKey());
            out.append(" : ");
            value(out, entry.getValue(), depth + 1);
        }
        newline(out, depth);
        out.append('}');
    }

    /** ... and an array on the line it starts on: {@code [ 1, 2 ]}, {@code [ {} , {} ]}. */
    private static void array(StringBuilder out, Collection<?> list, int depth) {
        if (list.isEmpty()) {
            out.append("[ ]");
            return;
        }
        out.append("[ ");
        if (list.size() >= PARALLEL) { // a large fabric's hosts and switches: each element is written alone, in parallel
            out.append(list.parallelStream().map(element -> {
                StringBuilder text = new StringBuilder(256);
                value(text, element, depth);
                return text;
            }).collect(Collectors.joining(", ")));
        } else {
            String separator = "";
            for (Object element : list) {
                out.append(separator);
                separator = ", ";
                value(out, element, depth);
            }
        }
        out.append(" ]");
    }

    private static void newline(StringBuilder out, int depth) {
        out.append('\n');
        for (int i = 0; i < depth; i++) {
            out.append("  ");
        }
    }

    /** Quotes, backslashes and control characters escaped, as Jackson does; everything else as it is. */
    private static void string(StringBuilder out, String text) {
        out.append('"');
        int from = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') {
                continue;
            }
            out.append(text, from, i).append('\\');
            switch (c) {
                case '"', '\\' -> out.append(c);
                case '\n' -> out.append('n');
                case '\r' -> out.append('r');
                case '\t' -> out.append('t');
                case '\b' -> out.append('b');
                case '\f' -> out.append('f');
                default -> out.append("u00").append(Character.forDigit(c >> 4, 16)).append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
            from = i + 1;
        }
        out.append(text, from, text.length()).append('"');
    }
}
