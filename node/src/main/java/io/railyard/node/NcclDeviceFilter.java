package io.railyard.node;

import java.util.ArrayList;
import java.util.List;

/**
 * A device list in NCCL's syntax, as in {@code NCCL_IB_HCA} and {@code NCCL_SOCKET_IFNAME}: comma-separated
 * {@code name[:port]} entries, a leading {@code ^} to exclude them, a leading {@code =} to match names exactly.
 * Without {@code =} each entry is a prefix: {@code mlx5_1} also matches {@code mlx5_10}.
 */
public record NcclDeviceFilter(String text, boolean exclude, boolean exact, List<Entry> entries) {

    /** One entry; port -1 when none is given. */
    public record Entry(String name, int port) {
        public boolean matchesName(String candidate, boolean exact) {
            return exact ? candidate.equals(name) : candidate.startsWith(name);
        }
    }

    public NcclDeviceFilter {
        entries = List.copyOf(entries);
    }

    public static NcclDeviceFilter parse(String text) {
        String rest = text.strip();
        boolean exclude = rest.startsWith("^");
        if (exclude) {
            rest = rest.substring(1);
        }
        boolean exact = rest.startsWith("=");
        if (exact) {
            rest = rest.substring(1);
        }
        List<Entry> entries = new ArrayList<>();
        for (String item : rest.split(",")) {
            String entry = item.strip();
            if (entry.isEmpty()) {
                continue;
            }
            int colon = entry.indexOf(':');
            if (colon < 0) {
                entries.add(new Entry(entry, -1));
            } else {
                try {
                    entries.add(new Entry(entry.substring(0, colon), Integer.parseInt(entry.substring(colon + 1))));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("'" + entry + "' has a port that is not a number");
                }
            }
        }
        return new NcclDeviceFilter(text, exclude, exact, entries);
    }

    /** Whether NCCL would use the named device (and port; -1 for devices without ports). */
    public boolean selects(String name, int port) {
        boolean listed = entries.stream()
                .anyMatch(e -> e.matchesName(name, exact) && (e.port() < 0 || port < 0 || e.port() == port));
        return exclude != listed;
    }

    /** The names an entry matches among candidates. */
    public List<String> matches(Entry entry, List<String> candidates) {
        return candidates.stream().filter(candidate -> entry.matchesName(candidate, exact)).toList();
    }
}
