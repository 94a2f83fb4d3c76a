package io.railyard.diagnose;

import java.util.Collection;
import java.util.Locale;

/** The outcome of one doctor check, and of the whole run. */
public enum CheckStatus {
    OK, WARN, FAIL, SKIP;

    /** The lower-case name used in JSON output. */
    public String json() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The overall status: fail if any failed, warn if any warned, else ok. */
    public static CheckStatus overall(Collection<CheckStatus> statuses) {
        if (statuses.contains(FAIL)) {
            return FAIL;
        }
        return statuses.contains(WARN) ? WARN : OK;
    }
}
