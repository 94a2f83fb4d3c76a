package io.railyard.node;

/** The locked-memory limit ({@code Max locked memory} in {@code /proc/self/limits}), in bytes. */
public record MemlockLimit(long softBytes, long hardBytes) {
    public static final long UNLIMITED = Long.MAX_VALUE;

    public boolean isUnlimited() {
        return softBytes == UNLIMITED;
    }

    /** Parses the {@code Max locked memory} row of a limits file. */
    public static MemlockLimit parse(String limitsFile) {
        for (String line : limitsFile.split("\n")) {
            if (line.startsWith("Max locked memory")) {
                String[] fields = line.substring("Max locked memory".length()).strip().split("\\s+");
                if (fields.length < 2) {
                    throw new IllegalArgumentException("the 'Max locked memory' row has no values");
                }
                return new MemlockLimit(bytes(fields[0]), bytes(fields[1]));
            }
        }
        throw new IllegalArgumentException("no 'Max locked memory' row");
    }

    private static long bytes(String field) {
        if (field.equals("unlimited")) {
            return UNLIMITED;
        }
        try {
            return Long.parseLong(field);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + field + "' is neither a number nor unlimited");
        }
    }

    /** A limit as people read it: {@code unlimited}, {@code 64 KiB}, {@code 8 MiB}. */
    public static String describe(long bytes) {
        if (bytes == UNLIMITED) {
            return "unlimited";
        }
        String[] units = {"bytes", "KiB", "MiB", "GiB", "TiB"};
        double value = bytes;
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return (value == Math.rint(value) ? String.valueOf((long) value) : String.format("%.1f", value)) + " " + units[unit];
    }
}
