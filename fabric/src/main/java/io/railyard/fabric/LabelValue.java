package io.railyard.fabric;

import java.util.Locale;

/** Kubernetes label values (and DNS names) made from switch names: lower case, at most 63 characters, alphanumeric at both ends. */
public final class LabelValue {
    private LabelValue() {}

    public static String of(String text) {
        String value = text.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.-]+", "-").replaceAll("^[^a-z0-9]+|[^a-z0-9]+$", "");
        if (value.length() > 63) {
            value = value.substring(0, 63).replaceAll("[^a-z0-9]+$", "");
        }
        return value;
    }
}
