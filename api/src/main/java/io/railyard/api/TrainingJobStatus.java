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

    @JsonPropertyDescription("Scheduled, Running, Restarting, PodsRejected, PreflightPassed, RdmaVerified, Stalled, Degraded, Succeeded, Failed.")
    public List<Condition> conditions;

    @JsonPropertyDescription("Gang restarts so far, for any cause.")
    public Integer restarts;

    @JsonPropertyDescription("Restarts for the job's own failures, counted against runPolicy.backoffLimit.")
    public Integer jobFailures;

    @JsonPropertyDescription("Restarts for node faults, counted against runPolicy.nodeFailureLimit.")
    public Integer nodeFailures;

    @JsonPropertyDescription("Nodes the job's pods are kept off (a required node affinity NotIn them), and why.")
    public List<ExcludedNode> excludedNodes;

    @JsonPropertyDescription("The last 10 restarts, oldest first: when, why, and the node, pod and exit code.")
    public List<Restart> restartHistory;

    @JsonPropertyDescription("What the nccl-watch sidecar last found wrong: since when, and the ranks with their pods and nodes.")
    public Stall stall;

    @JsonPropertyDescription("What the API server said when it last refused the gang's pods (Pod Security, a quota, a webhook), and how often in a row; absent once pods are accepted.")
    public PodRejection podRejection;

    @JsonPropertyDescription("GPUs of the whole job.")
    public Integer gpus;

    @JsonPropertyDescription("The hot spares: how many the job asks for and how many hold a node now.")
    public Spares spares;

    @JsonPropertyDescription("Each rank's pod and node, in rank order.")
    public List<Rank> ranks;

    @JsonPropertyDescription("When the gang first ran.")
    public String startTime;

    @JsonPropertyDescription("When the job succeeded or failed.")
    public String completionTime;

    @JsonPropertyDescription("What rank 0's NCCL log says about RDMA.")
    public RdmaVerification rdma;

    @JsonPropertyDescription("The preflight gate's measurements: every link the gang tested, and the verdict.")
    public Preflight preflight;

    @JsonPropertyDescription("NCCL Inspector's verdict on the job's speed (spec.monitoring.ncclInspector), as of when the Degraded condition last changed.")
    public Performance performance;

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

    /** The API server refused to create the gang's pods. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class PodRejection {
        @JsonPropertyDescription("Refusals in a row; the operator waits 10 s after the first, doubling to 5 minutes.")
        public Integer count;
        @JsonPropertyDescription("When the last refusal came.")
        public String last;
        @JsonPropertyDescription("PodSecurity, QuotaExceeded, WebhookDenied, Invalid or Forbidden.")
        public String reason;
    }

    /** A node the job avoids. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class ExcludedNode {
        @JsonPropertyDescription("The node's name (kubernetes.io/hostname).")
        public String node;
        @JsonPropertyDescription("Why it was blamed: NodeNotReady, an Rdma* condition, RdmaUnhealthyTaint, PreflightFailed, NoExecuteTaint, NodeLost, NodeShutdown, Evicted, NcclPortError, NcclDeviceError or NcclCompletionError.")
        public String reason;
        @JsonPropertyDescription("When it was excluded.")
        public String since;
    }

    /** A stalled, lagging or missing verdict of the nccl-watch sidecar. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Stall {
        @JsonPropertyDescription("stalled, lagging or missing.")
        public String state;
        @JsonPropertyDescription("When the sidecar first said so.")
        public String since;
        @JsonPropertyDescription("The ranks named, with the pod and node their address belongs to.")
        public List<StalledRank> ranks;
    }

    /** A rank the sidecar named. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class StalledRank {
        @JsonPropertyDescription("The communicator rank; absent for a process the report gives no rank, or ranks it did not name.")
        public Integer rank;
        @JsonPropertyDescription("The rank's bootstrap address.")
        public String host;
        @JsonPropertyDescription("The job's pod with that address.")
        public String pod;
        @JsonPropertyDescription("That pod's node.")
        public String node;
        @JsonPropertyDescription("What is wrong with it.")
        public String reason;
    }

    /** One restart of the gang. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Restart {
        @JsonPropertyDescription("When the operator restarted the gang.")
        public String time;
        @JsonPropertyDescription("Job, Node or Preemption: the limit it counted toward (Preemption: none).")
        public String cause;
        @JsonPropertyDescription("What happened: ContainerFailed, PodDeleted, NodeUnhealthy, or the node's fault.")
        public String reason;
        @JsonPropertyDescription("The node blamed, or the failed pod's node.")
        public String node;
        @JsonPropertyDescription("The pod that failed first.")
        public String pod;
        @JsonPropertyDescription("The trainer's exit code, when it exited.")
        public Integer exitCode;
        @JsonPropertyDescription("The failure in words.")
        public String message;
        @JsonPropertyDescription("InPlace or Recreate: how the gang restarted.")
        public String strategy;
        @JsonPropertyDescription("Pods restarted where they stood (InPlace).")
        public Integer restartedInPlace;
        @JsonPropertyDescription("Pods deleted and created again: on a blamed node, or every pod (Recreate).")
        public Integer replaced;
        @JsonPropertyDescription("Hot spares that took the place of a pod on a blamed node.")
        public Integer promoted;
        @JsonPropertyDescription("Seconds from the restart until every rank of the new run was running, from the pods' own status.")
        public Long recoverySeconds;
    }

    /** The job's hot spares. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Spares {
        @JsonPropertyDescription("spec.spareNodes.")
        public Integer desired;
        @JsonPropertyDescription("Spares placed on a node and waiting.")
        public Integer ready;
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

    /** What the preflight gate measured. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Preflight {
        @JsonPropertyDescription("True when every link reached the minimum share of its line rate.")
        public Boolean passed;
        @JsonPropertyDescription("The verdict in words: the slow link or the suspect node.")
        public String message;
        @JsonPropertyDescription("Each measured link, from a pod's HCA to the next pod's.")
        public List<PreflightLink> links;
    }

    /** One link the gate measured. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class PreflightLink {
        @JsonPropertyDescription("The node that sent (ib_write_bw's client).")
        public String from;
        @JsonPropertyDescription("The node that received (ib_write_bw's server).")
        public String to;
        @JsonPropertyDescription("The sending HCA.")
        public String hca;
        @JsonPropertyDescription("Measured bandwidth, Gb/s.")
        public Double gbps;
        @JsonPropertyDescription("The port's line rate, Gb/s.")
        public Double lineRateGbps;
        @JsonPropertyDescription("Measured share of the line rate.")
        public Double percent;
        @JsonPropertyDescription("ok, slow or failed.")
        public String verdict;
        @JsonPropertyDescription("Why a link failed.")
        public String reason;
    }

    /** The job's bus bandwidth and its slow ranks, when the Degraded condition last changed. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Performance {
        @JsonPropertyDescription("The job's median bus bandwidth (GB/s) of the collective that took its ranks the most time.")
        public Double busBandwidthGbps;
        @JsonPropertyDescription("That collective (AllReduce, ReduceScatter, ...).")
        public String collective;
        @JsonPropertyDescription("Its message size bucket.")
        public String size;
        @JsonPropertyDescription("What the job's links measured in preflight, as bus bandwidth (GB/s): the median node's HCAs' Gb/s over 8.")
        public Double expectedGbps;
        @JsonPropertyDescription("Ranks below spec.monitoring.ncclInspector.slowPercent of the job's median, slowest first.")
        public List<SlowRank> slowRanks;
        @JsonPropertyDescription("When the verdict began.")
        public String since;
    }

    /** A rank slower than the job. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class SlowRank {
        @JsonPropertyDescription("torchrun's node rank.")
        public Integer rank;
        @JsonPropertyDescription("Its pod.")
        public String pod;
        @JsonPropertyDescription("Its node.")
        public String node;
        @JsonPropertyDescription("The slow process's global rank, where the pod's sidecar told its processes apart (absent: the pod as a whole).")
        public Integer globalRank;
        @JsonPropertyDescription("That process's GPU (its local rank).")
        public Integer gpu;
        @JsonPropertyDescription("The NIC the device plugin gave that GPU (RAILYARD_GPU_NICS), e.g. mlx5_5:1.")
        public String nic;
        @JsonPropertyDescription("Its bus bandwidth as a share of the job's median.")
        public Double percent;
    }
}
