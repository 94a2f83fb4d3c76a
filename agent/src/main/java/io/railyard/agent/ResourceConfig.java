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
 * @param topology the NCCL topology file its containers get as NCCL_TOPO_FILE; null: none
 * @param adaptiveRouting whether the fabric's subnet manager (or the switches, on RoCE) enables adaptive routing for
 *     these ports, which Railyard cannot see; null: not said, NCCL's default stands
 */
public record ResourceConfig(String name, Mode mode, int slotsPerPort, PortSelector selector, boolean managementDatagrams, Integer pkey,
        Integer serviceLevel, Environment environment, Topology topology, Boolean adaptiveRouting) {
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");

    public enum Mode {
        @JsonProperty("exclusive") EXCLUSIVE,
        @JsonProperty("shared") SHARED
    }

    /**
     * The variables set beside NCCL's, each on unless turned off: the host's RoCE traffic class for NCCL (and UCX,
     * NVSHMEM), UCX's and NVSHMEM's device lists, RAILYARD_GPU_NICS, and NCCL's tuning by the fabric ({@link NcclTuning}).
     */
    public record Environment(boolean trafficClass, boolean ucx, boolean nvshmem, boolean gpuNics, boolean tuning) {
        public static final Environment ALL = new Environment(true, true, true, true, true);

        @JsonCreator
        public Environment(@JsonProperty("trafficClass") Boolean trafficClass, @JsonProperty("ucx") Boolean ucx,
                @JsonProperty("nvshmem") Boolean nvshmem, @JsonProperty("gpuNics") Boolean gpuNics, @JsonProperty("tuning") Boolean tuning) {
            this(!Boolean.FALSE.equals(trafficClass), !Boolean.FALSE.equals(ucx), !Boolean.FALSE.equals(nvshmem), !Boolean.FALSE.equals(gpuNics),
                    !Boolean.FALSE.equals(tuning));
        }
    }

    /**
     * Which NCCL topology file the resource's containers get: one {@code file} for every node, or by the value of a
     * node label ({@code nodeLabel: node.kubernetes.io/instance-type}, {@code files: {Standard_ND96isr_H100_v5: ...}}),
     * for VMs whose flat PCI tree hides where GPUs and NICs sit. Paths are the agent's (a ConfigMap mounted in it).
     */
    public record Topology(String file, String nodeLabel, java.util.Map<String, String> files) {
        @JsonCreator
        public Topology(@JsonProperty("file") String file, @JsonProperty("nodeLabel") String nodeLabel,
                @JsonProperty("files") java.util.Map<String, String> files) {
            this.file = file;
            this.nodeLabel = nodeLabel;
            this.files = files == null ? java.util.Map.of() : java.util.Map.copyOf(files);
            if ((file == null) == (nodeLabel == null) || nodeLabel != null && this.files.isEmpty() || file != null && !this.files.isEmpty()) {
                throw new IllegalArgumentException("topology: give either file, or nodeLabel with files (label value: file)");
            }
        }

        /** The file for a node with these labels; none when the label's value has no file. */
        public java.util.Optional<String> fileFor(java.util.Map<String, String> nodeLabels) {
            return file != null ? java.util.Optional.of(file) : java.util.Optional.ofNullable(files.get(nodeLabels.get(nodeLabel)));
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
            @JsonProperty("environment") Environment environment,
            @JsonProperty("topology") Topology topology,
            @JsonProperty("adaptiveRouting") Boolean adaptiveRouting) {
        this(name == null ? AgentConfig.DEFAULT_RESOURCE : name,
                mode == null ? Mode.EXCLUSIVE : mode,
                slotsPerPort == null ? 1 : slotsPerPort,
                selector == null ? PortSelector.ANY : selector,
                Boolean.TRUE.equals(managementDatagrams),
                pkey == null ? null : io.railyard.node.PKey.parse(pkey),
                serviceLevel,
                environment == null ? Environment.ALL : environment,
                topology,
                adaptiveRouting);
    }

    /** A resource with Railyard's defaults beside the given name, mode, slots, selector and umad choice. */
    public ResourceConfig(String name, Mode mode, int slotsPerPort, PortSelector selector, boolean managementDatagrams) {
        this(name, mode, slotsPerPort, selector, managementDatagrams, null, null, Environment.ALL, null, null);
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
        return new ResourceConfig(null, null, null, null, null, null, null, null, null, null);
    }

    /** The socket file name in the device plugin directory: {@code railyard-rdma-rdma.sock}. */
    public String socketName() {
        return "railyard-" + name.replaceAll("[^A-Za-z0-9]+", "-") + ".sock";
    }
}
