package io.railyard.node;

/** A port's logical or physical state as sysfs writes it: {@code 4: ACTIVE}, {@code 5: LinkUp}. */
public record LinkState(int id, String name) {
    public static final int ACTIVE = 4;
    public static final int LINK_UP = 5;

    /** Parses {@code <id>: <name>}. */
    public static LinkState parse(String text) {
        String[] parts = text.strip().split(":", -1);
        if (parts.length != 2) {
            throw new IllegalArgumentException("expected '<id>: <name>'");
        }
        try {
            return new LinkState(Integer.parseInt(parts[0].strip()), parts[1].strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the id is not a number");
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
