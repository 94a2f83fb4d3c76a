package io.railyard.fabric;

/**
 * A switch or channel adapter (HCA) as the fabric sees it.
 *
 * @param lid the switch's port-0 LID or the HCA's first port's LID; 0 when the tool did not print it
 * @param evidence the tool line that introduced the node
 */
public record FabricNode(Guid guid, Type type, String description, int ports, int lid, String evidence) {
    public enum Type { SWITCH, CA }

    public boolean isSwitch() {
        return type == Type.SWITCH;
    }

    /**
     * The host of an HCA: the first word of its node description ({@code gpu-node-07 mlx5_1} → {@code gpu-node-07}).
     * An HCA whose description was never set (rdma-ndd not running) keeps the factory one, {@code MT4123 ConnectX6
     * Mellanox Technologies}, which names no host: it stands alone, named after its GUID.
     */
    public String host() {
        if (factoryDescription()) {
            return "hca-" + guid.hex();
        }
        int space = description.indexOf(' ');
        return space < 0 ? description : description.substring(0, space);
    }

    /** The device of an HCA: the rest of its node description after the host ({@code mlx5_1}), else its GUID. */
    public String device() {
        int space = description.indexOf(' ');
        return space < 0 || factoryDescription() ? guid.toString() : description.substring(space + 1).trim();
    }

    private boolean factoryDescription() {
        return description.isBlank() || description.contains("Mellanox Technologies") || description.startsWith("MT")
                && description.length() > 2 && Character.isDigit(description.charAt(2));
    }
}
