package io.railyard.diagnose.logs;

import java.util.Locale;

/** How much a finding matters: {@code error} makes {@code railyard analyze} exit 1. */
public enum Severity {
    INFO, WARN, ERROR;

    public String json() {
        return name().toLowerCase(Locale.ROOT);
    }
}
