package io.railyard.node;

/** A GPU, the RDMA NIC nearest to it, and the PCI path class between them. */
public record GpuNicAffinity(Gpu gpu, Hca nearest, PathClass pathClass) {}
