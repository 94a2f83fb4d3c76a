package io.railyard.diagnose;

import java.util.function.Function;

/** One doctor check: its stable id (as in {@code railyard doctor --output json}) and what it looks at. */
public record Check(String id, Function<DoctorInput, CheckResult> check) {

    public CheckResult run(DoctorInput input) {
        return check.apply(input);
    }
}
