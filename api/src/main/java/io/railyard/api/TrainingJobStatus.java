package io.railyard.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/** Where the job is: its phase, conditions, restarts, ranks and whether NCCL really used RDMA. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TrainingJobStatus {
    @JsonPropertyDescription("Pending, Scheduling, Running, Succeeded or Failed.")
    public String phase;

    @JsonPropertyDescription("Scheduled, Running, Restarting, RdmaVerified, Succeeded, Failed.")
    public List<Condition> conditions;

    @JsonPropertyDescription("Gang restarts so far.")
    public Integer restarts;

    @JsonPropertyDescription("GPUs of the whole job.")
    public Integer gpus;

    @JsonPropertyDescription("Each rank's pod and node, in rank order.")
    public List<Rank> ranks;

    @JsonPropertyDescription("When the gang first ran.")
    public String startTime;

    @JsonPropertyDescription("When the job succeeded or failed.")
    public String completionTime;

    @JsonPropertyDescription("What rank 0's NCCL log says about RDMA.")
    public RdmaVerification rdma;

    /** A rank's pod and node. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Rank {
        @JsonPropertyDescription("torchrun's node rank.")
        public Integer rank;
        @JsonPropertyDescription("The pod that runs it.")
        public String pod;
        @JsonPropertyDescription("The node the pod runs on.")
        public String node;
    }

    /** The verdict on rank 0's NCCL log. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class RdmaVerification {
        @JsonPropertyDescription("True when NCCL used RDMA (and GPUDirect where asked), false when it fell back or failed.")
        public Boolean verified;
        @JsonPropertyDescription("RdmaInUse, SocketFallback, SocketTransport, GpuDirectOff, RdmaErrors or NotYetKnown.")
        public String reason;
        @JsonPropertyDescription("What the log showed, with the evidence's line.")
        public String message;
    }
}
