package io.railyard.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The TCP sockets processes listen on, as the kernel lists them ({@code /proc/net/tcp}, {@code tcp6}), matched to the
 * processes by the sockets' inodes among their open files.
 */
final class ListeningSockets {
    private static final String LISTEN = "0A";
    private static final String LOOPBACK_V4 = "0100007F";
    private static final String LOOPBACK_V6 = "00000000000000000000000001000000";
    private static final String LOOPBACK_V4_MAPPED = "0000000000000000FFFF00000100007F"; // ::ffff:127.0.0.1, as Java binds 127.0.0.1

    private ListeningSockets() {}

    /** "pid address:port" of each socket these processes listen on beyond the loopback address. */
    static List<String> beyondLoopback(List<Long> pids) throws IOException {
        Map<String, String> listening = new HashMap<>(); // inode -> local address, of the sockets not on loopback
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            for (String line : Files.readAllLines(Path.of(table)).stream().skip(1).toList()) {
                String[] fields = line.trim().split("\\s+");
                String address = fields[1].substring(0, fields[1].indexOf(':'));
                if (fields[3].equals(LISTEN) && !List.of(LOOPBACK_V4, LOOPBACK_V6, LOOPBACK_V4_MAPPED).contains(address)) {
                    listening.put(fields[9], fields[1]);
                }
            }
        }
        List<String> found = new ArrayList<>();
        for (long pid : pids) {
            try (Stream<Path> fds = Files.list(Path.of("/proc", String.valueOf(pid), "fd"))) {
                for (Path fd : fds.toList()) {
                    String target = readLink(fd);
                    if (target.startsWith("socket:[")) {
                        String inode = target.substring("socket:[".length(), target.length() - 1);
                        if (listening.containsKey(inode)) {
                            found.add(pid + " " + listening.get(inode));
                        }
                    }
                }
            } catch (IOException e) { // the process ended meanwhile
            }
        }
        return found;
    }

    private static String readLink(Path fd) {
        try {
            return Files.readSymbolicLink(fd).toString();
        } catch (IOException e) {
            return "";
        }
    }
}
