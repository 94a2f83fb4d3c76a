package io.railyard.fabric;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A short, stable name for each switch, valid as a label value: the host name in a Mellanox/NVIDIA node description
 * ({@code MF0;leaf-01:MQM8700/U1} → {@code leaf-01}), else a one-word description no other switch shares, else the GUID.
 * Factory descriptions ({@code SwitchIB Mellanox Technologies}) name a model, not a switch.
 */
final class SwitchNames {
    private static final Pattern MELLANOX = Pattern.compile("^[^;]*;([^:;]+):");

    private SwitchNames() {}

    static Map<Guid, String> of(List<FabricNode> switches) {
        Map<String, Integer> uses = new HashMap<>();
        Map<Guid, String> candidates = new HashMap<>();
        for (FabricNode sw : switches) {
            Matcher mellanox = MELLANOX.matcher(sw.description());
            String candidate = mellanox.find() ? LabelValue.of(mellanox.group(1))
                    : sw.description().isBlank() || sw.description().contains(" ") ? "" : LabelValue.of(sw.description());
            candidates.put(sw.guid(), candidate);
            uses.merge(candidate, 1, Integer::sum);
        }
        Map<Guid, String> names = new HashMap<>();
        candidates.forEach((guid, candidate) ->
                names.put(guid, candidate.isEmpty() || uses.get(candidate) > 1 ? "sw-" + guid.hex() : candidate));
        return names;
    }
}
