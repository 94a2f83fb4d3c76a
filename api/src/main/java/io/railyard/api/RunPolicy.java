package io.railyard.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;

/** How often the gang restarts, how long it may run, and when it is deleted. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RunPolicy {
    /** How the gang restarts. */
    public enum RestartStrategy {
        /** InPlace where the cluster restarts pods in place (Kubernetes 1.36, or the operator's --in-place-restart=on), else Recreate. */
        @JsonProperty("Auto") AUTO,
        /** Pods on healthy nodes restart where they stand (RestartAllContainers); only a pod on a blamed node is replaced. */
        @JsonProperty("InPlace") IN_PLACE,
        /** Every pod is deleted and created again. */
        @JsonProperty("Recreate") RECREATE
    }

    @JsonPropertyDescription("Auto (default), InPlace or Recreate: whether a restart keeps the pods on healthy nodes where they stand (their node, devices, volumes and address; init containers run again) and replaces only the pod on a blamed node, or deletes and creates every pod. Auto is InPlace where the cluster serves in-place restarts (Kubernetes 1.36: RestartAllContainersOnContainerExits), else Recreate.")
    public RestartStrategy restartStrategy;

    @Min(0)
    @JsonPropertyDescription("Restarts for the job's own failures (a trainer that exits non-zero on a healthy node) before it fails with BackoffLimitExceeded (default 3).")
    public Integer backoffLimit;

    @Min(0)
    @JsonPropertyDescription("Restarts for node faults (a member's node NotReady, with an Rdma* condition True or a NoExecute taint, evicted, or named by rank 0's NCCL log) before the job fails with NodeFailureLimitExceeded (default 10). Preemptions count toward neither limit.")
    public Integer nodeFailureLimit;

    @Min(0)
    @JsonPropertyDescription("Seconds a node blamed for a failure stays excluded from the job's pods, unless its conditions and taints clear first (default 3600; 0: never exclude).")
    public Long nodeExclusionSeconds;

    @Min(1)
    @JsonPropertyDescription("Seconds the job may run before it fails with DeadlineExceeded.")
    public Long activeDeadlineSeconds;

    @Min(0)
    @JsonPropertyDescription("Seconds after the job finished before it is deleted.")
    public Long ttlSecondsAfterFinished;
}
