package io.railyard.node;

/** The port's link layer: InfiniBand, or Ethernet for RoCE. */
public enum LinkLayer {
    INFINIBAND("InfiniBand"),
    ETHERNET("Ethernet");

    private final String sysfsName;

    LinkLayer(String sysfsName) {
        this.sysfsName = sysfsName;
    }

    public static LinkLayer parse(String text) {
        for (LinkLayer layer : values()) {
            if (layer.sysfsName.equals(text.strip())) {
                return layer;
            }
        }
        throw new IllegalArgumentException("expected InfiniBand or Ethernet");
    }

    @Override
    public String toString() {
        return sysfsName;
    }
}
