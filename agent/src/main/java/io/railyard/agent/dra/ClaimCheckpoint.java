package io.railyard.agent.dra;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claims this node has prepared, one file a claim ({@code <dir>/<uid>.json}): the kubelet unprepares a claim after
 * its last pod is gone, when the ResourceClaim itself may be deleted and this agent may have restarted; the file still
 * says what to remove. A file a claim, not one file for all: a prepare writes one small new file whatever the number
 * of claims on the node, and never replaces an existing file (on ext4 a rename over an existing file forces the new
 * data to disk, milliseconds on a busy disk). No fsync: what the checkpoint guards against is an agent restart, which
 * the page cache survives; after a node crash the CDI specs in /var/run/cdi are gone with the tmpfs anyway.
 */
final class ClaimCheckpoint {
    private static final Logger LOG = LoggerFactory.getLogger(ClaimCheckpoint.class);
    private static final String SUFFIX = ".json";

    /** A prepared device as the kubelet was told it. */
    record PreparedDevice(String request, String pool, String device, String cdiId) {}

    /** A prepared claim: where its CDI spec is and what was answered. */
    record Entry(String namespace, String name, String cdiFile, List<PreparedDevice> devices) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private final Path dir;
    private final Map<String, Entry> entries = new ConcurrentHashMap<>();

    /** Reads the claims prepared before; a file cut short by a killed agent is dropped, as if never prepared. */
    ClaimCheckpoint(Path dir) {
        this.dir = dir;
        try {
            Files.createDirectories(dir);
            try (DirectoryStream<Path> halfWritten = Files.newDirectoryStream(dir, ".*.tmp")) { // a killed agent's
                for (Path file : halfWritten) {
                    Files.delete(file);
                }
            }
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
                for (Path file : files) {
                    String uid = file.getFileName().toString().substring(0, file.getFileName().toString().length() - SUFFIX.length());
                    try {
                        entries.put(uid, JSON.readValue(file.toFile(), Entry.class));
                    } catch (IOException e) {
                        LOG.warn("dropping the unreadable checkpoint of claim {} ({}): the claim will be prepared again if asked", uid, e.getMessage());
                        Files.delete(file);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the checkpoint directory " + dir + ": " + e.getMessage(), e);
        }
    }

    Entry get(String claimUid) {
        return entries.get(claimUid);
    }

    void put(String claimUid, Entry entry) throws IOException {
        Path file = dir.resolve(claimUid + SUFFIX);
        Path temporary = dir.resolve("." + claimUid + ".tmp");
        JSON.writeValue(temporary.toFile(), entry);
        // the first prepare of a claim renames onto a new name; a repeat (the CDI spec was lost) replaces the file
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        entries.put(claimUid, entry);
    }

    Entry remove(String claimUid) throws IOException {
        Entry removed = entries.remove(claimUid);
        Files.deleteIfExists(dir.resolve(claimUid + SUFFIX));
        return removed;
    }
}
