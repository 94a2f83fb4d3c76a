package io.railyard.fabric;

/** Something wrong in the fabric, with the tool line that shows it and what to do. */
public record FabricFinding(String id, Severity severity, String summary, String evidence, String remedy) {
    public enum Severity {
        error, warning;
    }
}
