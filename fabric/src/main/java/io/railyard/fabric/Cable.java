package io.railyard.fabric;

import java.util.Locale;

/**
 * A link between two ports, with the width and speed it trained at.
 *
 * @param width lanes, as {@code 4X} ({@code 1X}, {@code 2X}, {@code 8X}, {@code 12X})
 * @param speed the lane speed's name: {@code SDR} … {@code NDR}, {@code XDR}
 * @param evidence the tool line that shows the link
 */
public record Cable(End a, End b, String width, String speed, String evidence) {
    /** One end of a cable: a node's port. */
    public record End(Guid node, int port) implements Comparable<End> {
        @Override
        public boolean equals(Object other) {
            return other instanceof End end && end.port == port && end.node.equals(node);
        }

        @Override
        public int hashCode() {
            return node.hashCode() * 31 + port;
        }

        @Override
        public int compareTo(End other) {
            int byNode = node.compareTo(other.node);
            return byNode != 0 ? byNode : Integer.compare(port, other.port);
        }
    }

    /** The same cable with its ends in a fixed order, so that the two lines that show it compare equal. */
    Cable normalized() {
        return a.compareTo(b) <= 0 ? this : new Cable(b, a, width, speed, evidence);
    }

    public boolean touches(Guid node) {
        return a.node.equals(node) || b.node.equals(node);
    }

    /** The end on the other side from this node. */
    public End peerOf(Guid node) {
        return a.node.equals(node) ? b : a;
    }

    /** The end on this node's side. */
    public End endOf(Guid node) {
        return a.node.equals(node) ? a : b;
    }

    /** {@code 4xHDR}, as ibnetdiscover prints it. */
    public String rate() {
        return width.toLowerCase(Locale.ROOT) + speed;
    }
}
