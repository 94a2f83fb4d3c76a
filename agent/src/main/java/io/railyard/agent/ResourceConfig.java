package io.railyard.agent;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.regex.Pattern;

/**
 * One extended resource: its name, whether each port is one device ({@code exclusive}) or several slots
 * ({@code shared}), which ports it holds, whether its containers get the ports' umad nodes (raw management
 * datagrams to the fabric, which infiniband-diags need and a training job must not have), the partition and service
 * level its queue pairs use, and which of the variables beside NCCL's it sets.
 *
 * @param pkey a partition key every allocated port must have ({@code 0x8001}); null: the default partition
 * @param serviceLevel the InfiniBand service level for NCCL_IB_SL; null: none set
 */
public record ResourceConfig(String name, Mode mode, int slotsPerPort, PortSelector selector, boolean managementDatagrams, Integer pkey,
        Integer serviceLevel, Environment environment) {
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");

    public enum Mode {
        @JsonProperty("exclusive") EXCLUSIVE,
        @JsonProperty("shared") SHARED
    }

    /**
     * The variables set beside NCCL's, each on unless turned off: the host's RoCE traffic class for NCCL (and UCX,
     * NVSHMEM), UCX's and NVSHMEM's device lists, and RAILYARD_GPU_NICS.
     */
    public record Environment(boolean trafficClass, boolean ucx, boolean nvshmem, boolean gpuNics) {
        public static final Environment ALL = new Environment(true, true, true, true);

        @JsonCreator
        public Environment(@JsonProperty("trafficClass") Boolean trafficClass, @JsonProperty("ucx") Boolean ucx,
                @JsonProperty("nvshmem") Boolean nvshmem, @JsonProperty("gpuNics") Boolean gpuNics) {
            this(!Boolean.FALSE.equals(trafficClass), !Boolean.FALSE.equals(ucx), !Boolean.FALSE.equals(nvshmem), !Boolean.FALSE.equals(gpuNics));
        }
    }

    @JsonCreator
    public ResourceConfig(
            @JsonProperty("name") String name,
            @JsonProperty("mode") Mode mode,
            @JsonProperty("slotsPerPort") Integer slotsPerPort,
            @JsonProperty("selector") PortSelector selector,
            @JsonProperty("managementDatagrams") Boolean managementDatagrams,
            @JsonProperty("pkey") String pkey,
            @JsonProperty("serviceLevel") Integer serviceLevel,
            @JsonProperty("environment") Environment environment) {
        this(name == null ? AgentConfig.DEFAULT_RESOURCE : name,
                mode == null ? Mode.EXCLUSIVE : mode,
                slotsPerPort == null ? 1 : slotsPerPort,
                selector == null ? PortSelector.ANY : selector,
                Boolean.TRUE.equals(managementDatagrams),
                pkey == null ? null : io.railyard.node.PKey.parse(pkey),
                serviceLevel,
                environment == null ? Environment.ALL : environment);
    }

    /** A resource with Railyard's defaults beside the given name, mode, slots, selector and umad choice. */
    public ResourceConfig(String name, Mode mode, int slotsPerPort, PortSelector selector, boolean managementDatagrams) {
        this(name, mode, slotsPerPort, selector, managementDatagrams, null, null, Environment.ALL);
    }

    public ResourceConfig {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("resource name '" + name + "' is not <domain>/<name> (e.g. rdma/rdma)");
        }
        if (mode == Mode.SHARED && slotsPerPort < 1) {
            throw new IllegalArgumentException("slotsPerPort must be at least 1 in shared mode");
        }
        if (mode == Mode.EXCLUSIVE && slotsPerPort != 1) {
            throw new IllegalArgumentException("slotsPerPort is only for mode: shared");
        }
        if (serviceLevel != null && (serviceLevel < 0 || serviceLevel > 15)) {
            throw new IllegalArgumentException("serviceLevel is " + serviceLevel + ": an InfiniBand service level is 0-15");
        }
    }

    static ResourceConfig defaults() {
        return new ResourceConfig(null, null, null, null, null, null, null, null);
    }

    /** The socket file name in the device plugin directory: {@code railyard-rdma-rdma.sock}. */
    public String socketName() {
        return "railyard-" + name.replaceAll("[^A-Za-z0-9]+", "-") + ".sock";
    }
}
