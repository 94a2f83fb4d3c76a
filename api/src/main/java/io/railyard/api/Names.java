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
    /**
     * Pod label: which run of the gang a pod belongs to (status.restarts when it was created, or when it was last restarted
     * in place); older runs' pods are deleted.
     */
    public static final String ATTEMPT_LABEL = PREFIX + "attempt";
    /** Pod label of a job's hot spare: a pod with no rank yet, until the operator promotes it to a failed rank's place. */
    public static final String SPARE_LABEL = PREFIX + "spare";
    /**
     * Pod annotation of a gang restarted in place: the trainer's restart count once it runs the pod's attempt. A higher
     * count means the trainer failed and restarted the pod itself.
     */
    public static final String RESTART_BASE_ANNOTATION = PREFIX + "restart-base";
    /** Pod annotations written by the operator once the gang is placed, in topology order. */
    public static final String NODE_RANK_ANNOTATION = PREFIX + "node-rank";
    public static final String MASTER_ADDR_ANNOTATION = PREFIX + "master-addr";
    /**
     * Node labels {@code railyard fabric} writes: the InfiniBand leaf (or rail group) and the group of spines above it;
     * Volcano's HyperNodes of tier 1 and 2 follow the same groups.
     */
    public static final String IB_LEAF_LABEL = PREFIX + "ib-leaf";
    public static final String IB_SPINE_GROUP_LABEL = PREFIX + "ib-spine-group";
    /** Pod label: the pod's node rank (torchrun's --node-rank), for the agent's port attribution and the dashboards. */
    public static final String RANK_LABEL = PREFIX + "rank";

    /**
     * Preflight: on pods, the run they belong to; on nodes, the verdict (passed or failed). The pods' annotations say
     * their role, peer node and HCAs; a node's annotation keeps the time and its worst figure.
     */
    public static final String PREFLIGHT_LABEL = PREFIX + "preflight";
    public static final String PREFLIGHT_ROLE_ANNOTATION = PREFIX + "preflight-role";
    public static final String PREFLIGHT_PEER_ANNOTATION = PREFIX + "preflight-peer";
    public static final String PREFLIGHT_HCA_ANNOTATION = PREFIX + "preflight-hca";
    public static final String PREFLIGHT_RESULT_ANNOTATION = PREFIX + "preflight-result";
    /** The taint `railyard preflight --taint` puts on failed nodes (effect NoSchedule). */
    public static final String PREFLIGHT_TAINT = PREFIX + "preflight-failed";

    /** The taint the agent's node health puts on a node with an RDMA fault, when enabled. */
    public static final String RDMA_UNHEALTHY_TAINT = PREFIX + "rdma-unhealthy";

    public static final String GPU_RESOURCE = "nvidia.com/gpu";
    public static final String DEFAULT_RDMA_RESOURCE = "rdma/rdma";

    private Names() {}
}
