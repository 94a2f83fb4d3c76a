package io.railyard.node;

/**
 * A character device of an HCA under {@code /dev/infiniband}: {@code uverbsN} for verbs, {@code umadN} and
 * {@code issmN} per port for management datagrams. Numbers are the kernel's, not the HCA's.
 */
public record CharDevice(Kind kind, String name, int port, boolean present) {
    public enum Kind { UVERBS, UMAD, ISSM }

    /** The device node's path on the host. */
    public String hostPath() {
        return "/dev/infiniband/" + name;
    }
}
