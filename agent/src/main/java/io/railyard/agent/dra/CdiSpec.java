package io.railyard.agent.dra;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.railyard.agent.PortAllocation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A claim's CDI spec, one file a claim as the DRA drivers' convention has it ({@code k8s.<driver>-claim_<uid>.json},
 * kind {@code k8s.<driver>/claim}): one CDI device a request, {@code <uid>-<request>}, whose edits give the container
 * the device nodes and NCCL's variables of every port allocated for that request. One device a request, not a port:
 * CDI sets a variable once per device, so NCCL_IB_HCA must list all of a request's ports in one.
 */
final class CdiSpec {
    /** Device names with a leading digit and the deviceNodes fields used here need 0.5.0; nothing newer is used. */
    static final String VERSION = "0.5.0";
    private static final ObjectMapper JSON = new ObjectMapper();

    private CdiSpec() {}

    static String kind(String driver) {
        return "k8s." + driver + "/claim";
    }

    static Path file(Path cdiDir, String driver, String claimUid) {
        return cdiDir.resolve("k8s." + driver + "-claim_" + claimUid + ".json");
    }

    static String deviceName(String claimUid, String request) {
        return claimUid + "-" + request;
    }

    /** The fully qualified id the kubelet hands the runtime: {@code k8s.<driver>/claim=<uid>-<request>}. */
    static String deviceId(String driver, String claimUid, String request) {
        return kind(driver) + "=" + deviceName(claimUid, request);
    }

    /** The spec's JSON for a claim's requests, each with the allocation of its ports. */
    static Map<String, Object> spec(String driver, String claimUid, Map<String, PortAllocation> byRequest) {
        List<Map<String, Object>> devices = new ArrayList<>();
        byRequest.forEach((request, allocation) -> {
            List<String> env = new ArrayList<>();
            allocation.env().forEach((name, value) -> env.add(name + "=" + value));
            List<Map<String, Object>> nodes = allocation.deviceNodes().stream()
                    .<Map<String, Object>>map(path -> new LinkedHashMap<>(Map.of("path", path, "permissions", "rw"))).toList();
            Map<String, Object> edits = new LinkedHashMap<>();
            edits.put("env", env);
            edits.put("deviceNodes", nodes);
            if (!allocation.mounts().isEmpty()) {
                edits.put("mounts", allocation.mounts().stream().<Map<String, Object>>map(mount -> new LinkedHashMap<>(Map.of(
                        "hostPath", mount.hostPath(), "containerPath", mount.containerPath(), "options", List.of("ro", "nosuid", "nodev", "bind"))))
                        .toList());
            }
            Map<String, Object> device = new LinkedHashMap<>();
            device.put("name", deviceName(claimUid, request));
            device.put("containerEdits", edits);
            devices.add(device);
        });
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("cdiVersion", VERSION);
        spec.put("kind", kind(driver));
        spec.put("devices", devices);
        return spec;
    }

    /** Written beside and renamed into place: a runtime never reads half a spec. */
    static void write(Path file, Map<String, Object> spec) throws IOException {
        Files.createDirectories(file.getParent());
        Path temporary = file.resolveSibling("." + file.getFileName() + ".tmp");
        JSON.writerWithDefaultPrettyPrinter().writeValue(temporary.toFile(), spec);
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
