package io.railyard.node;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/** The NCCL variables that make NCCL use exactly a given set of RDMA ports. */
public final class NcclEnvironment {
    public static final String IB_HCA = "NCCL_IB_HCA";
    public static final String IB_GID_INDEX = "NCCL_IB_GID_INDEX";
    public static final String IB_ROCE_VERSION_NUM = "NCCL_IB_ROCE_VERSION_NUM";
    public static final String IB_ADDR_FAMILY = "NCCL_IB_ADDR_FAMILY";

    private NcclEnvironment() {}

    /**
     * {@code NCCL_IB_HCA} in exact-match form ({@code =mlx5_1:1,mlx5_2:1}: without {@code =} NCCL matches prefixes
     * and {@code mlx5_1} also takes {@code mlx5_10}); the RoCE v2 GID index when every RoCE port agrees on one,
     * else the RoCE version and address family that let NCCL 2.21+ choose it per port. The HCAs are in device order,
     * whatever order the ports came in.
     */
    public static Map<String, String> forPorts(List<Port> ports) {
        Map<String, String> env = new LinkedHashMap<>();
        if (ports.isEmpty()) {
            return env;
        }
        env.put(IB_HCA, "=" + ports.stream().sorted(Port.BY_DEVICE).map(Port::id).collect(Collectors.joining(",")));
        List<Port> roce = ports.stream().filter(Port::isRoce).toList();
        if (roce.isEmpty()) {
            return env;
        }
        OptionalInt common = commonGidIndex(roce);
        if (common.isPresent()) {
            env.put(IB_GID_INDEX, String.valueOf(common.getAsInt()));
        } else {
            env.put(IB_ROCE_VERSION_NUM, "2");
            env.put(IB_ADDR_FAMILY, "AF_INET");
        }
        return env;
    }

    /** The RoCE v2 GID index every RoCE port of the set has; none on InfiniBand or when they differ. */
    public static OptionalInt commonGidIndex(List<Port> ports) {
        List<Port> roce = ports.stream().filter(Port::isRoce).toList();
        if (roce.isEmpty()) {
            return OptionalInt.empty();
        }
        OptionalInt first = roce.getFirst().ncclGidIndex();
        boolean allAgree = first.isPresent() && roce.stream().allMatch(port -> port.ncclGidIndex().equals(first));
        return allAgree ? first : OptionalInt.empty();
    }
}
