package io.railyard.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import java.util.Map;

/** The RDMA devices each pod gets, and how NCCL uses them. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RdmaSpec {
    @JsonPropertyDescription("Extended resource of the RDMA device plugin (default rdma/rdma).")
    public String resource;

    @Min(1)
    @Max(64)
    @JsonPropertyDescription("RDMA devices per pod (default 1: one rail; a node with a NIC per GPU wants gpusPerNode).")
    public Integer devicesPerNode;

    /** How the pods get their NICs. */
    public enum Allocation {
        @JsonProperty("devicePlugin") DEVICE_PLUGIN,
        @JsonProperty("dra") DRA
    }

    @JsonPropertyDescription("devicePlugin: request the extended resource (default); dra: a ResourceClaim per pod from Railyard's DRA driver.")
    public Allocation allocation;

    @JsonPropertyDescription("With allocation dra: claim the GPUs too, each NIC paired with a GPU on the same PCIe root (default false).")
    public Boolean alignWithGpus;

    @JsonPropertyDescription("With allocation dra: the DRA DeviceClass of the NICs (default rdma.railyard.io).")
    public String deviceClassName;

    @JsonPropertyDescription("Use GPUDirect RDMA: sets NCCL_NET_GDR_LEVEL (default true).")
    public Boolean gpuDirect;

    @JsonPropertyDescription("Run the pods in the host's network namespace (default false).")
    public Boolean hostNetwork;

    @JsonPropertyDescription("NCCL_SOCKET_IFNAME: the interface for NCCL's bootstrap and socket traffic.")
    public String socketInterface;

    @JsonPropertyDescription("More NCCL_* variables for the trainer.")
    public Map<String, String> env;
}
