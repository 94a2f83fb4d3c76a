package io.railyard.agent.podresources;

/** An RDMA port a container holds, as the kubelet lists it: through a device plugin resource or a DRA claim. */
public record HeldPort(String namespace, String pod, String container, String resource, String device, int port) {}
