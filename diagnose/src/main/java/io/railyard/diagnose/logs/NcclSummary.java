package io.railyard.diagnose.logs;

import java.util.List;

/**
 * What an NCCL debug log says about the network.
 *
 * @param transport {@code ib}, {@code roce}, {@code socket}, {@code plugin} or {@code unknown}
 * @param plugin the external network plugin's name (IBext_v8, AWS Libfabric, …), or null
 * @param fallback true when RDMA was tried and NCCL fell back to sockets
 * @param gdr true when connections used GPUDirect RDMA, false when the log says it was off, null when it does not say
 */
public record NcclSummary(
        String version, String transport, String plugin, boolean fallback, Boolean gdr, List<String> hcas,
        String bootstrapInterface, long netConnections, long gdrConnections) {

    public NcclSummary {
        hcas = List.copyOf(hcas);
    }

    /** True when NCCL moved data over RDMA (its own IB transport or an RDMA plugin). */
    public boolean rdma() {
        return transport.equals("ib") || transport.equals("roce") || (transport.equals("plugin") && plugin != null);
    }
}
