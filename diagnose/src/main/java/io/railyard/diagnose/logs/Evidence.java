package io.railyard.diagnose.logs;

/** A line that supports a finding: the file, its line number, and the text (shortened past 300 characters). */
public record Evidence(String file, long line, String text) {}
