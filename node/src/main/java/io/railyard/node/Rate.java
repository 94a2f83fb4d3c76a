package io.railyard.node;

/** A port's signalling rate as sysfs writes it: {@code 200 Gb/sec (4X HDR)}. */
public record Rate(double gigabitsPerSecond, String width, String text) {

    /** Parses the rate; the lane width and speed in parentheses are optional. */
    public static Rate parse(String text) {
        String trimmed = text.strip();
        String[] tokens = trimmed.split("\\s+", 3);
        if (tokens.length < 2 || !tokens[1].toLowerCase().startsWith("gb/sec")) {
            throw new IllegalArgumentException("expected '<number> Gb/sec (<width>)'");
        }
        double gbps;
        try {
            gbps = Double.parseDouble(tokens[0]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the rate is not a number");
        }
        int open = trimmed.indexOf('(');
        int close = trimmed.indexOf(')', open + 1);
        String width = open >= 0 && close > open ? trimmed.substring(open + 1, close).strip() : "";
        return new Rate(gbps, width, trimmed);
    }

    /** Bytes per second as node_exporter reports it (Gb/s × 125,000,000). */
    public long bytesPerSecond() {
        return Math.round(gigabitsPerSecond * 125_000_000d);
    }

    @Override
    public String toString() {
        return text;
    }
}
