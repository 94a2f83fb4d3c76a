package io.railyard.api;

/** Railyard's API group and the labels, annotations and resources it uses on nodes and pods. */
public final class Names {
    public static final String GROUP = "railyard.io";
    public static final String VERSION = "v1alpha1";
    public static final String PREFIX = GROUP + "/";

    /** Node label set by the agent on nodes with RDMA ports; training pods require it. */
    public static final String RDMA_NODE_LABEL = PREFIX + "rdma";
    /** Pod labels: the job a pod belongs to, and its index in the gang. */
    public static final String JOB_LABEL = PREFIX + "job-name";
    public static final String INDEX_LABEL = PREFIX + "job-index";
    /** Pod annotations written by the operator once the gang is placed, in topology order. */
    public static final String NODE_RANK_ANNOTATION = PREFIX + "node-rank";
    public static final String MASTER_ADDR_ANNOTATION = PREFIX + "master-addr";

    public static final String GPU_RESOURCE = "nvidia.com/gpu";
    public static final String DEFAULT_RDMA_RESOURCE = "rdma/rdma";

    private Names() {}
}
