package io.railyard.node;

/** The type of a GID table entry as {@code gid_attrs/types/<i>} writes it. */
public enum GidType {
    IB_ROCE_V1("IB/RoCE v1"),
    ROCE_V2("RoCE v2");

    private final String sysfsName;

    GidType(String sysfsName) {
        this.sysfsName = sysfsName;
    }

    public static GidType parse(String text) {
        for (GidType type : values()) {
            if (type.sysfsName.equalsIgnoreCase(text.strip())) {
                return type;
            }
        }
        throw new IllegalArgumentException("expected 'IB/RoCE v1' or 'RoCE v2'");
    }

    @Override
    public String toString() {
        return sysfsName;
    }
}
