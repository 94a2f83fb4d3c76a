package io.railyard.diagnose;

/** One doctor check over a node snapshot and its environment. */
public interface Check {

    /** The check's stable id, as in {@code railyard doctor --output json}. */
    String id();

    CheckResult run(DoctorInput input);
}
