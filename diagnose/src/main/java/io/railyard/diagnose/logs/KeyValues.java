package io.railyard.diagnose.logs;

import java.util.HashMap;
import java.util.Map;

/** The {@code key=value} words of a line, as Railyard's helpers and benchmark print them; other words are skipped. */
public final class KeyValues {
    private KeyValues() {}

    public static Map<String, String> of(String text) {
        Map<String, String> fields = new HashMap<>();
        for (String word : text.strip().split("\\s+")) {
            int eq = word.indexOf('=');
            if (eq > 0) {
                fields.put(word.substring(0, eq), word.substring(eq + 1));
            }
        }
        return fields;
    }
}
