package io.railyard.agent.dra;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The claims this node has prepared, kept in a file: the kubelet unprepares a claim after its last pod is gone, when
 * the ResourceClaim itself may be deleted and this agent may have restarted; the file still says what to remove.
 */
final class ClaimCheckpoint {
    /** A prepared device as the kubelet was told it. */
    record PreparedDevice(String request, String pool, String device, String cdiId) {}

    /** A prepared claim: where its CDI spec is and what was answered. */
    record Entry(String namespace, String name, String cdiFile, List<PreparedDevice> devices) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private final Path file;
    private final Map<String, Entry> entries;

    ClaimCheckpoint(Path file) {
        this.file = file;
        try {
            entries = Files.exists(file) ? new LinkedHashMap<>(JSON.readValue(file.toFile(), new TypeReference<Map<String, Entry>>() { }))
                    : new LinkedHashMap<>();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the checkpoint " + file + ": " + e.getMessage(), e);
        }
    }

    synchronized Entry get(String claimUid) {
        return entries.get(claimUid);
    }

    synchronized void put(String claimUid, Entry entry) throws IOException {
        entries.put(claimUid, entry);
        save();
    }

    synchronized Entry remove(String claimUid) throws IOException {
        Entry removed = entries.remove(claimUid);
        if (removed != null) {
            save();
        }
        return removed;
    }

    synchronized int size() {
        return entries.size();
    }

    private void save() throws IOException {
        Files.createDirectories(file.getParent());
        Path temporary = file.resolveSibling("." + file.getFileName() + ".tmp");
        JSON.writeValue(temporary.toFile(), entries);
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
