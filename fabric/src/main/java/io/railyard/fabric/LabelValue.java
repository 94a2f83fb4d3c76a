package io.railyard.fabric;

import java.util.Locale;

/** Kubernetes label values (and DNS names) made from switch names: lower case, at most 63 characters, alphanumeric at both ends. */
public final class LabelValue {
    private LabelValue() {}

    public static String of(String text) {
        if (isValid(text)) {
            return text;
        }
        String value = text.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.-]+", "-").replaceAll("^[^a-z0-9]+|[^a-z0-9]+$", "");
        if (value.length() > 63) {
            value = value.substring(0, 63).replaceAll("[^a-z0-9]+$", "");
        }
        return value;
    }

    /** Already a label value: the common case of a switch named leaf-01, checked without the patterns above. */
    private static boolean isValid(String text) {
        if (text.isEmpty() || text.length() > 63 || !alphanumeric(text.charAt(0)) || !alphanumeric(text.charAt(text.length() - 1))) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!alphanumeric(c) && c != '.' && c != '-') {
                return false;
            }
        }
        return true;
    }

    private static boolean alphanumeric(char c) {
        return c >= 'a' && c <= 'z' || c >= '0' && c <= '9';
    }
}
