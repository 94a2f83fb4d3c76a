package io.railyard.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.railyard.node.Port;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** One RDMA port allocated to a helper pod's container. */
record AllocatedDevice(String hca, int port, Integer gidIndex) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The device plugin's description of the allocated ports ({@code RAILYARD_RDMA_DEVICES}), else NCCL_IB_HCA's list
     * with the one GID index; in device order, so that the k-th port here is measured against the k-th port of the peer,
     * the same rail, whatever order either node's allocation listed them in.
     */
    static List<AllocatedDevice> of(String devicesJson, String ncclIbHca, Integer gidIndex) throws IOException {
        List<AllocatedDevice> devices = new ArrayList<>();
        if (devicesJson != null && !devicesJson.isBlank()) {
            for (JsonNode entry : JSON.readTree(devicesJson)) {
                devices.add(new AllocatedDevice(entry.path("hca").asText(), entry.path("port").asInt(1),
                        entry.path("gidIndex").isInt() ? entry.path("gidIndex").asInt() : null));
            }
        } else if (ncclIbHca != null && !ncclIbHca.isBlank()) {
            for (String item : ncclIbHca.replaceFirst("^[=^]+", "").split(",")) {
                String[] parts = item.strip().split(":");
                if (!parts[0].isEmpty()) {
                    devices.add(new AllocatedDevice(parts[0], parts.length > 1 ? Integer.parseInt(parts[1]) : 1, gidIndex));
                }
            }
        }
        devices.sort(Comparator.comparing(AllocatedDevice::hca, Port::compareHcaNames).thenComparingInt(AllocatedDevice::port));
        return devices;
    }

    /** perftest's arguments that pick this port: device, port and, on RoCE, the GID index. */
    List<String> perftestArgs() {
        List<String> args = new ArrayList<>(List.of("-d", hca, "-i", String.valueOf(port)));
        if (gidIndex != null) {
            args.addAll(List.of("-x", String.valueOf(gidIndex)));
        }
        return args;
    }
}
