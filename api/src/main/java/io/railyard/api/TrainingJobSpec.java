package io.railyard.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/** What to run, on how many nodes and GPUs, over which RDMA resource. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "has(self.script) != has(self.module)", message = "exactly one of script or module must be set")
public class TrainingJobSpec {
    @Required
    @JsonPropertyDescription("Container image with PyTorch, NCCL and the training code.")
    public String image;

    @JsonPropertyDescription("The Python file torchrun runs; exactly one of script or module.")
    public String script;

    @JsonPropertyDescription("The Python module torchrun runs with -m; exactly one of script or module.")
    public String module;

    @JsonPropertyDescription("Arguments for the script or module, passed verbatim, each as its own argv element.")
    public List<String> args;

    @Required
    @Min(1)
    @JsonPropertyDescription("Number of nodes: one pod per node, each with all its GPUs.")
    public Integer nodes;

    @Required
    @Min(1)
    @JsonPropertyDescription("GPUs per node: torchrun's --nproc-per-node.")
    public Integer gpusPerNode;

    @Min(0)
    @JsonPropertyDescription("Hot spares (default 0): pods of the same shape that hold a node and its devices once the gang runs, and take the place of a rank whose node fails, so that the gang restarts in place with no new pod to schedule. Only where the gang restarts in place; a spare never takes rank 0's place (its address is the gang's rendezvous).")
    public Integer spareNodes;

    @JsonPropertyDescription("RDMA devices, GPUDirect RDMA and NCCL settings.")
    public RdmaSpec rdma;

    @Min(1)
    @Max(65535)
    @JsonPropertyDescription("torchrun's master port (default 29500; with hostNetwork, a port derived from the job so that two jobs on one node do not collide).")
    public Integer masterPort;

    @JsonPropertyDescription("The dataset volume, and the loader that fills it before training.")
    public DataVolume dataset;

    @JsonPropertyDescription("The model volume, and the loader that fills it before training.")
    public DataVolume model;

    @JsonPropertyDescription("CPU and memory per pod, as requests and limits.")
    public PodResources resources;

    @JsonPropertyDescription("Additions to every pod: node selector, tolerations, env, volumes, service account.")
    public PodTemplateOverrides podTemplate;

    @JsonPropertyDescription("Gang scheduler, queue, priority, and the node labels that order the ranks.")
    public SchedulingSpec scheduling;

    @JsonPropertyDescription("Measure every pod's RDMA links to the next pod with ib_write_bw before torchrun starts.")
    public PreflightSpec preflight;

    @JsonPropertyDescription("Restarts, deadline and clean-up.")
    public RunPolicy runPolicy;

    @JsonPropertyDescription("What watches the job while it runs: NCCL RAS hang detection.")
    public MonitoringSpec monitoring;
}
